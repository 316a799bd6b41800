#!/usr/bin/env bash
# Makes Sources/RangersClient/Generated/ again from Sources/Server/openapi.yaml with
# swift-openapi-generator, and records what it was made from in Generated/Stamp.txt
# (the document's and the configuration's SHA-256, the generator's version and each
# generated file's SHA-256), which ClientStampTests hold against the files.
# Run it after every change to the document; commit what it changes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
generator_version=1.14.3
document="$root/Sources/Server/openapi.yaml"
config="$root/Sources/RangersClient/openapi-generator-config.yaml"
output="$root/Sources/RangersClient/Generated"

# The generator is built in a package of its own under .build, so the project's
# package neither depends on it nor builds it.
tool="$root/.build/openapi-generator"
mkdir -p "$tool/Sources/Unused"
cat > "$tool/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "OpenAPIGeneratorTool",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "$generator_version")],
    targets: [.target(name: "Unused", path: "Sources/Unused")]
)
SWIFT
echo "// Empty: this package only builds swift-openapi-generator." > "$tool/Sources/Unused/Unused.swift"
swift build --package-path "$tool" --product swift-openapi-generator
binary="$(swift build --package-path "$tool" --product swift-openapi-generator --show-bin-path)/swift-openapi-generator"

# OpenAPIKit reads an integer's bounds as Int: the seed's maximum, UInt64's largest,
# does not parse. The generator makes no range checks and types every integer as
# Int, so the copy it reads goes without that bound and nothing generated differs.
readable="$tool/openapi.yaml"
sed -E 's/, maximum: 18446744073709551615//' "$document" > "$readable"

rm -rf "$output"
mkdir -p "$output"
"$binary" generate --config "$config" --output-directory "$output" "$readable"

sha() { sha256sum "$1" | cut -d' ' -f1; }
{
    echo "generator $generator_version"
    echo "document $(sha "$document")"
    echo "config $(sha "$config")"
    for file in "$output"/*.swift; do
        echo "$(basename "$file") $(sha "$file")"
    done
} > "$output/Stamp.txt"
echo "generate-client: wrote $(ls "$output" | tr '\n' ' ')"
