import Embedding
import Foundation
import Testing

/// A temporary model folder with the real `config.json` and `vocab.txt` and a crafted
/// `model.safetensors`.
private struct CraftedModel {
    let directory: String
    var safetensors: String { directory + "/model.safetensors" }

    init(headerLength: UInt64? = nil, header: String, data: [UInt8] = [], copyConfig: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("kindred-embed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let source = Model.directory
        if copyConfig {
            guard FileManager.default.fileExists(atPath: source + "/config.json") else {
                throw Model.Missing(directory: source)
            }
            for name in ["config.json", "vocab.txt"] {
                try FileManager.default.copyItem(atPath: source + "/" + name, toPath: directory + "/" + name)
            }
        }
        // Like real writers, pad the header with spaces so the data section starts 8-aligned.
        var headerBytes = Array(header.utf8)
        while headerBytes.count % 8 != 0 { headerBytes.append(0x20) }
        var bytes: [UInt8] = []
        let length = headerLength ?? UInt64(headerBytes.count)
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: length >> (8 * UInt64(i)))) }
        bytes += headerBytes
        bytes += data
        try Data(bytes).write(to: URL(fileURLWithPath: safetensors))
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// The error `SentenceEmbedder.init` throws for this folder.
    func loadError() throws -> ModelLoadError {
        defer { remove() }
        do {
            _ = try SentenceEmbedder(modelDirectory: directory)
        } catch let error as ModelLoadError {
            return error
        }
        Issue.record("a malformed model was accepted")
        throw CancellationError()
    }
}

@Suite("Malformed model files are refused")
struct SafeTensorsTests {
    @Test func headerLengthPastEndOfFile() throws {
        let error = try CraftedModel(headerLength: 1 << 40, header: "{}").loadError()
        #expect(error.file.hasSuffix("model.safetensors"))
        #expect(error.reason.contains("header length"))
    }

    @Test func truncatedFile() throws {
        let model = try CraftedModel(header: "")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: model.safetensors))
        let error = try model.loadError()
        #expect(error.file.hasSuffix("model.safetensors"))
    }

    @Test func headerIsNotJSON() throws {
        let error = try CraftedModel(header: "{\"embeddings.word_embeddings.weight\": [oops").loadError()
        #expect(error.file.hasSuffix("model.safetensors"))
        #expect(error.reason.contains("JSON"))
    }

    @Test func offsetsPastEnd() throws {
        let header = #"{"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#
        let error = try CraftedModel(header: header, data: [UInt8](repeating: 0, count: 8)).loadError()
        #expect(error.tensor == "embeddings.word_embeddings.weight")
        #expect(error.reason.contains("past the end"))
        #expect(error.description.contains("embeddings.word_embeddings.weight"))
    }

    @Test func shapeDisagreesWithOffsets() throws {
        let header = #"{"embeddings.position_embeddings.weight":{"dtype":"F32","shape":[3,2],"data_offsets":[0,16]}}"#
        let error = try CraftedModel(header: header, data: [UInt8](repeating: 0, count: 16)).loadError()
        #expect(error.tensor == "embeddings.position_embeddings.weight")
    }

    @Test func shapeDisagreesWithConfig() throws {
        let header = #"{"__metadata__":{"format":"pt"},"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[4,4],"data_offsets":[0,64]}}"#
        let error = try CraftedModel(header: header, data: [UInt8](repeating: 0, count: 64)).loadError()
        #expect(error.tensor == "embeddings.word_embeddings.weight")
        #expect(error.reason.contains("[30522, 384]"))
    }

    @Test func missingTensorIsNamed() throws {
        let header = #"{"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[30522,384],"data_offsets":[0,46881792]}}"#
        let error = try CraftedModel(header: header, data: [UInt8](repeating: 0, count: 46_881_792)).loadError()
        #expect(error.tensor == "embeddings.position_embeddings.weight")
        #expect(error.reason.contains("missing"))
    }

    @Test func validFileReadsBack() throws {
        let header = #"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"ids":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}}"#
        var data: [UInt8] = []
        for f in [Float(1.5), -2] { withUnsafeBytes(of: f.bitPattern.littleEndian) { data += $0 } }
        data += [UInt8](repeating: 0, count: 8)
        let model = try CraftedModel(header: header, data: data, copyConfig: false)
        defer { model.remove() }
        let file = try SafeTensors(path: model.safetensors)
        #expect(try file.floatArray("w", shape: [2]) == [1.5, -2])
        #expect(try file.info("ids").dtype == "I64")
        #expect(throws: ModelLoadError.self) { try file.floats("ids", shape: [1]) }
        #expect(throws: ModelLoadError.self) { try file.floats("w", shape: [3]) }
    }
}
