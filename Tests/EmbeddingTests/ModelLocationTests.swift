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

@Suite struct ModelLocationByName {
    @Test func multilingualE5HasItsOwnFolderAndOtherNamesTheDefault() {
        let env = ["KINDRED_MODEL_DIR": "/m", "XDG_DATA_HOME": "/x"]
        #expect(ModelLocation.directory(forModel: "multilingual-e5-small", environment: env) == "/x/kindred/models/multilingual-e5-small")
        #expect(ModelLocation.directory(forModel: "intfloat/multilingual-e5-small", environment: ["HOME": "/h"])
                == "/h/.local/share/kindred/models/multilingual-e5-small")
        #expect(ModelLocation.directory(forModel: "all-MiniLM-L6-v2", environment: env) == "/m")
        #expect(ModelLocation.directory(forModel: "", environment: env) == "/m")
    }
}
