// JSONRPC module.
