# otelhouse: build, run and test the collector distribution.
# Everything is pinned in go.mod (ocb and mdatagen are Go tools); nothing is
# installed globally. Downloads are cached under .cache/ (gitignored).

GO        ?= go
BIN       := bin/otelhouse
CONFIG    ?= otelcol-config.yaml
PKGS      := ./...
# Test modules with heavy client dependencies, kept out of the main go.mod.
TESTMODS  := e2e/ddtracego e2e/ddapiclient e2e/apiclient
export CGO_ENABLED := 0
export GOFLAGS    := -mod=readonly

# The embedded ClickHouse engine: libchdb from npm, fetched once into a
# gitignored cache (about 170 MB download, 570 MB unpacked).
CHDB_VERSION := 26.7.3-stable.1
CHDB_DIR     := $(CURDIR)/.cache/chdb/$(CHDB_VERSION)
LIBCHDB      := $(CHDB_DIR)/libchdb.so
export OTELHOUSE_LIBCHDB := $(LIBCHDB)

# golangci-lint, built from tools/golangci into the cache (see lint).
GOLANGCI := $(CURDIR)/.cache/bin/golangci-lint

.PHONY: all build image podman check-generated run test web-test bench-once test-race unit e2e bench bench-go bench-corpus bench-storage bench-memory pgo fuzz lint generate check-manifest clean libchdb web chromium

all: build

# The binary embeds the web UI's frontend (build tag builtinassets); a
# plain `go build` serves a page saying how to build it instead.
build: web
	$(GO) build -tags builtinassets -trimpath -ldflags='-s -w' -o $(BIN) ./distribution

# The web UI's frontend: npm ci from the committed lockfile (packages cached
# under .cache/npm), then TypeScript, Vite and precompression into
# web/dist, rebuilt when a source changes.
WEB       := extension/webuiextension/web
WEB_SRC   := $(shell find $(WEB)/src $(WEB)/scripts -type f 2>/dev/null) $(WEB)/index.html $(WEB)/vite.config.ts $(WEB)/tsconfig.json
web: $(WEB)/dist/index.html

$(WEB)/node_modules/.installed: $(WEB)/package-lock.json $(WEB)/package.json
	cd $(WEB) && npm ci --cache $(CURDIR)/.cache/npm --prefer-offline --no-audit --no-fund --loglevel=error
	@touch $@

# The frontend's unit tests (vitest, src/*.test.ts: the pure helpers).
web-test: $(WEB)/node_modules/.installed
	cd $(WEB) && npm run --silent test

$(WEB)/dist/index.html: $(WEB)/node_modules/.installed $(WEB_SRC)
	cd $(WEB) && npm run --silent build

# The container test builds and runs the image with Debian's podman (rootful,
# runc) and a base made by mmdebstrap.
podman:
	@command -v podman >/dev/null && command -v runc >/dev/null && command -v mmdebstrap >/dev/null || \
	  { apt-get update -qq && apt-get install -y -qq podman runc mmdebstrap >/dev/null; }

# Browser tests drive Debian's chromium (never a downloaded browser).
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

# The all-in-one container image, with podman (installed if missing); a
# local base is made from Debian's packages where no registry is reached.
image: build libchdb podman
	./scripts/image.sh

run: build libchdb
	./$(BIN) --config $(CONFIG)

libchdb: $(LIBCHDB)

$(LIBCHDB):
	@mkdir -p $(CHDB_DIR) $(CURDIR)/.cache/npm
	@tmp=$$(mktemp -d $(CHDB_DIR)/fetch.XXXXXX) && \
	  (cd $$tmp && npm pack --silent --cache $(CURDIR)/.cache/npm @chdb/lib-linux-x64-gnu@$(CHDB_VERSION) >/dev/null && \
	   tar xzf chdb-lib-linux-x64-gnu-$(CHDB_VERSION).tgz package/libchdb.so) && \
	  mv $$tmp/package/libchdb.so $@ && rm -rf $$tmp
	@echo "libchdb $(CHDB_VERSION) at $@"

# The one test command: README and .ci/run call exactly this.
# The plain run tests what ships (no cgo: libchdb through purego alone);
# the race run then repeats the same packages under the race detector. The
# test modules run read-only, so a go.sum that lags the root module's
# imports fails here instead of being patched in the clone.
# The browser tests share one package and run one after another: the
# default 10-minute limit per package is too short for them on two cores.
test: check-manifest lint build libchdb chromium podman web-test
	OTELHOUSE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 45m $(PKGS)
	@for m in $(TESTMODS); do echo "== $$m"; (cd $$m && OTELHOUSE_BIN=$(CURDIR)/$(BIN) GOFLAGS=-mod=readonly $(GO) test -count=1 ./...) || exit 1; done
	@$(MAKE) --no-print-directory bench-once
	@$(MAKE) --no-print-directory test-race

# The two halves of the test run, to pick one while working: the
# packages' own tests (libchdb, no binary), and the end-to-end ones that
# run the built binary (browser, container, the test modules).
unit: libchdb web-test
	$(GO) test -count=1 $$($(GO) list $(PKGS) | grep -v '/e2e$$')

e2e: build libchdb chromium podman
	OTELHOUSE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 45m ./e2e
	@for m in $(TESTMODS); do echo "== $$m"; (cd $$m && OTELHOUSE_BIN=$(CURDIR)/$(BIN) GOFLAGS=-mod=readonly $(GO) test -count=1 ./...) || exit 1; done

# Every benchmark once, so one that no longer runs fails CI (figures come
# from `make bench` and the docs' commands, not from this); the search
# benchmark on small generated data.
bench-once: libchdb
	SEARCH_BENCH_LOGS=20000 SEARCH_BENCH_SPANS=2000 $(GO) test -count=1 -run='^$$' -bench=. -benchtime=1x $(PKGS)

# The race detector needs cgo, so a C compiler: Debian's gcc, installed
# if the machine lacks one (the binary itself is built without cgo). The
# e2e package is left out: it drives that binary, which the detector
# does not instrument, and its browser tests ran in the first pass.
test-race: build libchdb
	@command -v gcc >/dev/null || { apt-get update -qq && apt-get install -y -qq gcc >/dev/null; }
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m $$($(GO) list $(PKGS) | grep -v '/e2e$$')

# The figures of docs/performance.md and docs/memory.md, each by its own
# tool (minutes; run on a quiet machine): the receiver's and translators'
# Go benchmarks with pdata's floors, the perf corpus's CPU per item and
# peak RSS (nop exporter), stored throughput against the engine's insert
# path and against the pipeline with merges stopped, what one merge costs
# per row with each of the tables' indexes and codecs, and the memory
# budget under a flood. BENCH picks some: BENCH="go corpus".
BENCH ?= go corpus storage memory
bench: build libchdb
	@for b in $(BENCH); do $(MAKE) --no-print-directory bench-$$b || exit 1; done

# With the load tool's corpus generated (bench-corpus does), the decoders'
# corpus benchmarks read its payloads (PERF_CORPUS).
# They are built with the binary's profile (PGO), as the binary is.
bench-go:
	PERF_CORPUS=$$([ -d /tmp/otelhouse-load/corpus ] && echo /tmp/otelhouse-load/corpus) \
	  $(GO) test -run='^$$' -bench=. -benchmem -pgo=$(CURDIR)/distribution/default.pgo ./receiver/... ./internal/domain/query/...

bench-corpus:
	scripts/bench-corpus.sh "$(BIN) --config testdata/perf/nop.yaml --feature-gates=receiver.datadog"
	scripts/bench-gcpace.sh

bench-storage:
	KINDS="logs_zstd traces_v04" DURATION=40s scripts/bench-storage.sh
	KINDS="logs_zstd traces_v04" DURATION=40s SETUP_SQL="SYSTEM STOP MERGES" scripts/bench-storage.sh
	scripts/bench-merge-cost.sh
	KIND=traces_v04 scripts/bench-merge-cost.sh

bench-memory:
	OTELHOUSE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -run TestMemoryBudgetHoldsUnderFlood -v ./e2e

# Rewrites distribution/default.pgo, the CPU profile `go build` optimises
# the binary with (profile-guided optimisation), from the receiver under
# the perf corpus; `make build` after it uses the new one.
pgo: build
	scripts/pgo-profile.sh

# Short coverage-guided runs of every fuzz target. Minimising each new
# input is capped: the default minute per input, on the traces
# equivalence targets, took whole runs.
FUZZTIME ?= 20s
FUZZ = $(GO) test -run='^$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=5s
fuzz:
	$(FUZZ) -fuzz=FuzzTranslateLogs ./receiver/datadogreceiver/internal/logs
	$(FUZZ) -fuzz=FuzzLiftedMessage ./receiver/datadogreceiver/internal/logs
	$(FUZZ) -fuzz=FuzzDecodeTracer ./receiver/datadogreceiver/internal/traces
	$(FUZZ) -fuzz=FuzzMsgpackPath ./receiver/datadogreceiver/internal/traces
	$(FUZZ) -fuzz=FuzzAgentPath ./receiver/datadogreceiver/internal/traces
	$(FUZZ) -fuzz=FuzzMetricsDecoders ./receiver/datadogreceiver/internal/metrics
	$(FUZZ) -fuzz=FuzzSeriesV2 ./receiver/datadogreceiver/internal/metrics
	$(FUZZ) -fuzz=FuzzCounters ./internal/runtime/budget
	$(FUZZ) -fuzz=FuzzCheckSQLWhere ./internal/domain/query
	$(FUZZ) -fuzz=FuzzLucene ./internal/domain/query
	$(FUZZ) -fuzz=FuzzDatadog ./internal/domain/query
	$(FUZZ) -fuzz=FuzzRender ./extension/observabilityapiextension/internal/alerttemplate
	$(FUZZ) -fuzz=FuzzStatement ./extension/embeddedclickhouseextension/internal/chhttp

lint: $(GOLANGCI) tools/openapi/node_modules/.installed tools/eslint/node_modules/.installed $(WEB)/node_modules/.installed
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@for m in $(TESTMODS); do (cd $$m && $(GO) vet ./...) || exit 1; done
	$(GOLANGCI) run ./...
	@for m in $(TESTMODS); do (cd $$m && $(GOLANGCI) run --config $(CURDIR)/.golangci.yml ./...) || exit 1; done
	cd $(WEB) && ../../../tools/eslint/node_modules/.bin/eslint -c ../../../tools/eslint/eslint.config.js --max-warnings 0 src
	cd tools/openapi && npx --no-install redocly lint --format=summary ../../extension/observabilityapiextension/internal/api/openapi.yaml
	@$(MAKE) --no-print-directory check-generated

# The REST API's OpenAPI document passes Redocly's recommended rules; the
# linter comes from npm, pinned by tools/openapi's lockfile.
tools/openapi/node_modules/.installed: tools/openapi/package-lock.json tools/openapi/package.json
	cd tools/openapi && npm ci --cache $(CURDIR)/.cache/npm --prefer-offline --no-audit --no-fund --loglevel=error
	@touch $@

# ESLint over the web UI's TypeScript (tools/eslint/eslint.config.js),
# from tools/eslint's lockfile: its own TypeScript 5.9 parses for
# typescript-eslint, which does not read the UI's TypeScript 7.
tools/eslint/node_modules/.installed: tools/eslint/package-lock.json tools/eslint/package.json
	cd tools/eslint && npm ci --cache $(CURDIR)/.cache/npm --prefer-offline --no-audit --no-fund --loglevel=error
	@touch $@

# golangci-lint (.golangci.yml: errcheck, staticcheck, revive, gosec,
# bodyclose, misspell, errorlint, unparam, gocritic, testifylint, thelper
# beyond vet, and gofumpt and goimports as formatters: `golangci-lint fmt`
# rewrites what they ask), pinned in its own module so its dependencies stay
# out of the distribution's go.mod; built once into .cache/bin.
$(GOLANGCI): tools/golangci/go.mod tools/golangci/go.sum
	cd tools/golangci && $(GO) build -o $@ github.com/golangci/golangci-lint/v2/cmd/golangci-lint

# What mdatagen and ocb generate is committed; regenerating must change
# nothing, or a metadata.yaml or builder-config.yaml edit was not followed
# by `make generate`.
# (Compared with the work tree's own changes, so edits in progress pass.)
check-generated:
	@before=$$(git diff -- receiver extension distribution | sha256sum); \
	  $(MAKE) --no-print-directory generate >/dev/null 2>&1 || exit 1; \
	  after=$$(git diff -- receiver extension distribution | sha256sum); \
	  if [ "$$before" != "$$after" ]; then git diff --stat -- receiver extension distribution; \
	    echo "generated files were stale (now regenerated): commit them"; exit 1; fi

# Regenerates mdatagen metadata, the ocb distribution sources and the web
# UI's types of the REST API (openapi-typescript over openapi.yaml).
generate: tools/openapi/node_modules/.installed
	$(GO) generate ./receiver/... ./extension/...
	$(GO) tool builder --config builder-config.yaml --skip-get-modules --skip-compilation
	gofmt -w distribution
	cd tools/openapi && npx --no-install openapi-typescript --output ../../$(WEB)/src/api.gen.ts \
	  ../../extension/observabilityapiextension/internal/api/openapi.yaml >/dev/null

# ocb runs with --skip-get-modules, so it no longer checks go.mod against the
# manifest: every gomod pin of builder-config.yaml must be what go.mod requires.
check-manifest:
	@fail=0; \
	for m in $$(awk '/gomod:/ {print $$3"@"$$4}' builder-config.yaml | grep -v '^github.com/otelhouse/' | sort -u); do \
	  mod=$${m%@*}; want=$${m#*@}; \
	  have=$$($(GO) list -m -f '{{.Version}}' $$mod 2>/dev/null); \
	  if [ "$$have" != "$$want" ]; then echo "check-manifest: $$mod is $$have in go.mod, $$want in builder-config.yaml"; fail=1; fi; \
	done; exit $$fail

clean:
	rm -rf bin $(WEB)/dist
