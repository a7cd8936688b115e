// swift-tools-version:6.0
import PackageDescription

// Dependencies point down only, and each target declares exactly the modules of ours it imports
// (tests-e2e/test_module_map.py checks this and the README's module map):
//   kindred -> Editor -> Service (Editor also on JSONRPC and KindredCore)
//   kindred -> Cluster -> Service (Cluster also on JSONRPC, KindredCore and CNATS)
//   kindred, kindred-bench, KindredKit -> Service -> {JSONRPC, MCP, Storage, VectorIndex, KeywordIndex, Embedding, Remote, Grouping, Pictures} -> {LinearAlgebra, KindredCore}
//   VectorIndex, Embedding, Grouping -> Kernels -> CKernels (Kernels imports nothing else of ours)
//   Service, KindredKit -> KindredProtocol (the request and result types of every method; imports nothing of ours)
// (MCP sits on JSONRPC; the numeric modules import LinearAlgebra, not KindredCore — the indexes take their top-k heap from it; Pictures draws SVG
// from plain values and imports nothing of ours.)
// Benchmarks and synthetic data live outside the product modules: in kindred-bench (an executable
// that bench/*/run.sh build) and KindredTestSupport (shared by it and the tests).
// C libraries are wrapped by C* system-library targets and the hand-written C kernels by the CKernels target; each is imported by
// exactly one Swift module (CKernels by Kernels, with `internal import`: no C type in its API).
let package = Package(
    name: "Kindred",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "kindred", targets: ["kindred"]),
        // Kindred in-process, for apps that cannot start a child process (docs/library.md).
        .library(name: "KindredKit", targets: ["KindredKit"]),
        // The measurements behind bench/ (not shipped with kindred).
        .executable(name: "kindred-bench", targets: ["kindred-bench"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CLAPACKE", pkgConfig: "lapacke", providers: [.apt(["liblapacke-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // nats.c, the NATS client with JetStream and key-value (Debian ships no pkg-config file for it).
        .systemLibrary(name: "CNATS", providers: [.apt(["libnats-dev"])]),
        // The Snowball stemmers, for keyword search in languages other than English (no pkg-config file either).
        .systemLibrary(name: "CStemmer", providers: [.apt(["libstemmer-dev"])]),

        // Hand-vectorised scan and small matrix kernels (AVX2/FMA/F16C with run-time dispatch, portable C fallback).
        // SwiftPM's release flags only: unsafeFlags would stop an app from pinning KindredKit by version
        // (docs/library.md; bench/search/README.md has -O2 against -O3).
        .target(name: "CKernels"),
        // The one Swift owner of CKernels (`internal import`): typed kernels and the int8 row codes.
        .target(name: "Kernels", dependencies: ["CKernels"], exclude: ["README.md"]),

        .target(name: "KindredCore", dependencies: ["CStemmer"]),
        .target(name: "LinearAlgebra", dependencies: ["CBLAS", "CLAPACKE"], linkerSettings: [.linkedLibrary("m")]),
        .target(name: "Storage", dependencies: ["KindredCore", "CSQLite"], exclude: ["README.md"]),
        .target(name: "VectorIndex", dependencies: ["LinearAlgebra", "Kernels"]),
        .target(name: "KeywordIndex", dependencies: ["LinearAlgebra"]),
        .target(name: "Embedding", dependencies: ["LinearAlgebra", "Kernels"]),
        // HTTP over libcurl and the remote providers spoken over it (embeddings, chat completions).
        .target(name: "Remote", dependencies: ["KindredCore", "LinearAlgebra", "CCurl"]),
        .target(name: "Grouping", dependencies: ["KindredCore", "LinearAlgebra", "Kernels"], exclude: ["README.md"]),
        // One Codable request and result type per method and the catalogue of methods and their params.
        .target(name: "KindredProtocol", exclude: ["README.md"]),
        .target(name: "JSONRPC", dependencies: ["KindredCore", "KindredProtocol"]),
        .target(name: "MCP", dependencies: ["KindredCore", "JSONRPC", "KindredProtocol"]),
        .target(name: "Pictures"),
        .target(name: "Service", dependencies: [
            "KindredCore", "KindredProtocol", "LinearAlgebra", "Storage", "VectorIndex", "KeywordIndex", "Embedding", "Remote", "Grouping", "JSONRPC", "MCP",
            "Pictures",
        ]),
        // `kindred lsp`: a language server for a folder of notes on the same service (docs/editor.md).
        .target(name: "Editor", dependencies: ["Service", "JSONRPC", "KindredCore"]),
        // Owners sharded over `kindred node` processes on NATS JetStream: shard hashing, the shard map,
        // the write log, the node and the router (docs/scale-out.md).
        .target(name: "Cluster", dependencies: ["CNATS", "Service", "JSONRPC", "KindredCore", "KindredProtocol"]),
        // Argument parsing, exit codes and terminal output of the two command-line programs.
        .target(name: "KindredCLI", dependencies: ["KindredCore"]),
        .executableTarget(name: "kindred", dependencies: ["Service", "JSONRPC", "MCP", "KindredCore", "KindredCLI", "LinearAlgebra", "Cluster", "Editor"]),
        // Synthetic data (seeded generator, clustered occurrences) and the pattern engine's synthetic speed run.
        .target(name: "KindredTestSupport", dependencies: ["Grouping", "LinearAlgebra"]),
        .executableTarget(name: "kindred-bench", dependencies: [
            "Service", "VectorIndex", "Embedding", "Grouping", "KindredCore", "KindredCLI", "KindredTestSupport", "LinearAlgebra",
        ]),
        // Typed requests and results over Service, with Swift concurrency; its public API names no type of ours below it
        // but the protocol's (KindredProtocol, which it re-exports).
        // On Apple platforms CBLAS/CLAPACKE would be Accelerate instead of OpenBLAS/LAPACKE (docs/library.md); not built here.
        .target(name: "KindredKit", dependencies: ["Service", "KindredCore", "KindredProtocol", "JSONRPC"]),
        // A program that uses only KindredKit's public API; scripts/test.sh runs it.
        .executableTarget(name: "KindredKitExample", dependencies: ["KindredKit"], path: "Examples/KindredKitExample"),

        .testTarget(name: "KindredCoreTests", dependencies: ["KindredCore"]),
        .testTarget(name: "LinearAlgebraTests", dependencies: ["LinearAlgebra"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "KindredCore", "KindredTestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "KernelsTests", dependencies: ["Kernels"]),
        .testTarget(name: "VectorIndexTests", dependencies: ["VectorIndex", "LinearAlgebra", "Kernels"]),
        .testTarget(name: "KeywordIndexTests", dependencies: ["KeywordIndex"]),
        .testTarget(name: "EmbeddingTests", dependencies: ["Embedding", "LinearAlgebra"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GroupingTests", dependencies: ["Grouping", "LinearAlgebra", "KindredTestSupport"]),
        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", "KindredCore"]),
        .testTarget(name: "MCPTests", dependencies: ["MCP", "JSONRPC", "KindredCore"]),
        .testTarget(name: "PicturesTests", dependencies: ["Pictures"]),
        .testTarget(name: "ServiceTests", dependencies: ["Service", "Storage", "JSONRPC", "KindredCore", "KindredProtocol", "Grouping", "MCP", "Embedding"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "KindredProtocolTests", dependencies: ["KindredProtocol", "KindredKit"]),
        .testTarget(name: "KindredKitTests", dependencies: ["KindredKit"]),
        .testTarget(name: "RemoteTests", dependencies: ["Remote", "KindredCore"]),
        .testTarget(name: "ClusterTests", dependencies: ["Cluster", "KindredCore"]),
        .testTarget(name: "EditorTests", dependencies: ["Editor"]),
    ]
)
