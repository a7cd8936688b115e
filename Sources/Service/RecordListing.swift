public import KindredCore
public import JSONRPC

extension KindredService {
    /// Every record of `owner` whose metadata holds `key`, with its revision, text and metadata: for
    /// a front end that keeps records in step with files (`kindred lsp`), to write only what changed
    /// and delete what is gone. Reads one pooled connection; no method of the wire answers this.
    public func records(owner: String, withMetadataKey key: String) throws(ResponseError) -> [Record] {
        try withReader { store in try store.records(owner: owner, withMetadataKey: key) }
    }
}
