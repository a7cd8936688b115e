#ifndef KINDRED_CNATS_SHIM_H
#define KINDRED_CNATS_SHIM_H
#include <nats/nats.h>

// The message handler type as a plain function pointer Swift can form from a closure without captures.
typedef void (*kindred_nats_msg_handler)(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure);
static inline natsStatus kindred_nats_subscribe(natsSubscription **sub, natsConnection *nc, const char *subject,
                                               kindred_nats_msg_handler cb, void *closure) {
    return natsConnection_Subscribe(sub, nc, subject, cb, closure);
}
#endif
