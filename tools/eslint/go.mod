// A module of its own so that ./... of the project's module stops here:
// npm installs node_modules below, and one of ESLint's dependencies
// (flatted) ships Go files that go vet and golangci-lint would read.
module github.com/otelhouse/otelhouse/tools/eslint

go 1.26
