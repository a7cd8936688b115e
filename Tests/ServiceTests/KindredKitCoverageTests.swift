import Testing
import KindredKit
@testable import Service

/// Every method the service answers has a typed request in KindredKit, and no typed request names a
/// method the service does not answer.
@Suite struct KindredKitCoverageTests {
    @Test func everyServedMethodHasATypedRequest() {
        let served = Set(KindredService.routes.map(\.method))
        let typed = Set(KindredMethods.typed.map { $0.method })
        #expect(served.subtracting(typed).sorted() == [], "methods without a typed request")
        #expect(typed.subtracting(served).sorted() == [], "typed requests for methods the service does not answer")
    }
}
