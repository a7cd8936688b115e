import Foundation
import KindredCore
import JSONRPC
import Remote
import Storage
import Synchronization
import KindredProtocol

/// What the request being handled asked of remote providers, reported as its `usage`.
final class UsageTally: Sendable {
    @TaskLocal static var current: UsageTally?
    private let byProvider = Mutex<[RemoteUsage]>([])

    func add(_ u: RemoteUsage) {
        byProvider.withLock { list in
            if let k = list.firstIndex(where: { $0.provider == u.provider }) { list[k].add(u) } else { list.append(u) }
        }
    }

    /// `usage` of a response: one entry per provider; nil when no remote call was made.
    var json: JSONValue? {
        let list = byProvider.withLock { $0 }
        guard !list.isEmpty else { return nil }
        return .array(list.map { u in
            var o: JSONObject = ["provider": .string(u.provider), "calls": .from(u.calls), "attempts": .from(u.attempts),
                                 "inputCharacters": .from(u.inputCharacters)]
            if let t = u.tokens { o["tokens"] = .from(t) }
            return .object(o)
        })
    }
}

/// A remote call refused because the owner reached a daily limit.
struct DailyLimitReached: Error, CustomStringConvertible {
    let owner: String
    let key: String
    let limit: Int
    let used: Int
    let day: String
    var description: String {
        "the daily limit of \(limit) \(key == "usage.dailyCallLimit" ? "remote calls" : "characters sent to remote providers") (\(key)) is reached for this owner on \(day) (UTC)"
    }

    var responseError: ResponseError {
        ResponseError(code: .limitExceeded, message: description,
                      data: ["field": .string(key), "limit": .from(limit), "used": .from(used), "day": .string(day), "owner": .string(owner)])
    }
}

extension KindredService {
    /// Today's date in UTC, as usage totals are keyed.
    static func usageDay(_ date: Date = Date()) -> String {
        var t = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// Embeds `texts` as `role` (search texts are queries; records, passages and occurrences are
    /// documents) on behalf of `owner`. With a remote provider the owner's daily limits are
    /// checked first (a call that would pass one is refused with `DailyLimitReached`, nothing sent),
    /// and what the provider was asked — failed attempts included — is added to the owner's day
    /// and to the current request's `usage`. `store` is the writer's store when the caller holds it.
    func embedTexts(_ texts: [String], as role: EmbeddingRole, owner: String, store: RecordStore? = nil, isCancelled: () -> Bool,
                    log: (String) -> Void = { _ in }) throws -> [[Float]] {
        guard let embedder else { throw ResponseError.embedderUnavailable(embedderProblem ?? "no embedder") }
        guard embedder.remoteProvider != nil else { return try embedder.embed(texts, as: role, isCancelled: isCancelled) }
        try checkDailyLimits(owner: owner, texts: embedder.forms.prepare(texts, as: role), store: store)
        do {
            let (vectors, usage) = try embedder.embedMetered(texts, as: role, isCancelled: isCancelled, onRetry: log)
            if let usage { record(usage, owner: owner, store: store) }
            settleDimension(embedder.dimension)
            return vectors
        } catch let e as RemoteEmbeddingError {
            record(e.usage, owner: owner, store: store)
            throw e.error
        }
    }

    func checkDailyLimits(owner: String, texts: [String], store: RecordStore?) throws {
        let callLimit = settings.usage.dailyCallLimit, charLimit = settings.usage.dailyCharacterLimit
        guard callLimit > 0 || charLimit > 0 else { return }
        let day = Self.usageDay()
        let used = try store.map { try $0.usageTotal(owner: owner, day: day) } ?? writer.with { try $0.usageTotal(owner: owner, day: day) }
        let batch = max(1, settings.embedder.batchSize)
        let calls = (texts.count + batch - 1) / batch
        let chars = texts.reduce(0) { $0 + $1.unicodeScalars.count }
        if callLimit > 0, used.calls + calls > callLimit {
            throw DailyLimitReached(owner: owner, key: "usage.dailyCallLimit", limit: callLimit, used: used.calls, day: day)
        }
        if charLimit > 0, used.inputCharacters + chars > charLimit {
            throw DailyLimitReached(owner: owner, key: "usage.dailyCharacterLimit", limit: charLimit, used: used.inputCharacters, day: day)
        }
    }

    func record(_ u: RemoteUsage, owner: String, store: RecordStore?) {
        UsageTally.current?.add(u)
        guard u.calls > 0 || u.attempts > 0 else { return }
        let day = Self.usageDay()
        let write: (RecordStore) throws -> Void = {
            try $0.addUsage(owner: owner, day: day, provider: u.provider, calls: u.calls, attempts: u.attempts,
                            inputCharacters: u.inputCharacters, tokens: u.tokens ?? 0)
        }
        // Usage is kept even when the work that caused it fails (the provider counted it).
        if let store { try? write(store) } else { try? writer.with { try write($0) } }
    }

    /// `usage/daily`: an owner's remote provider use per UTC day and provider.
    func dailyUsage(_ req: UsageDaily) throws(ResponseError) -> UsageDaily.Result {
        let owner = req.owner, from = req.from, to = req.to
        let rows = try withReader { try $0.usage(owner: owner, from: from, to: to) }
        let callLimit = settings.usage.dailyCallLimit, charLimit = settings.usage.dailyCharacterLimit
        return UsageDaily.Result(
            owner: owner,
            days: rows.map { r in
                UsageDaily.Result.Day(day: r.day, provider: r.provider, calls: r.calls, attempts: r.attempts,
                                      inputCharacters: r.inputCharacters, tokens: r.tokens)
            },
            limits: UsageDaily.Result.Limits(dailyCallLimit: callLimit > 0 ? callLimit : nil, dailyCharacterLimit: charLimit > 0 ? charLimit : nil),
            today: Self.usageDay())
    }
}
