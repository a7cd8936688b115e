import Foundation
import Testing
@testable import Embedding

@Suite struct ModelLocationRules {
    @Test func environmentPrecedence() {
        #expect(ModelLocation.defaultDirectory(environment: ["KINDRED_MODEL_DIR": "/m", "XDG_DATA_HOME": "/x"]) == "/m")
        #expect(ModelLocation.defaultDirectory(environment: ["KINDRED_MODEL_DIR": "", "XDG_DATA_HOME": "/x", "HOME": "/h"])
                == "/x/kindred/models/all-MiniLM-L6-v2")
        #expect(ModelLocation.defaultDirectory(environment: ["HOME": "/h"])
                == "/h/.local/share/kindred/models/all-MiniLM-L6-v2")
    }
}
