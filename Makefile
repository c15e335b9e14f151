# Ermine developer commands. `make help` lists them.
.DEFAULT_GOAL := help
PG ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
NATS ?= nats://127.0.0.1:4222
REDIS ?= redis://127.0.0.1:6379/0

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

run: ## run a node with embedded defaults on 127.0.0.1:14702
	go run ./cmd/ermine

build: ## build the ermine binary (stamped with the commit: ermine version; VERSION=x.y.z for a release)
	CGO_ENABLED=0 go build -buildvcs=auto $(if $(VERSION),-ldflags "-X ermine/internal/server.Version=$(VERSION)") -o ermine ./cmd/ermine

test: ## the README test command
	go test ./...

test-all: ## everything CI runs (needs PostgreSQL, Redis and NATS on loopback)
	bash .ci/run

clients: ## run the real-client suite (revolt.js, stoat.js) against a fresh build
	cd clients && npm ci --no-audit --no-fund
	go test -count=1 -v -run TestClientLibraries ./clients/

livekit: ## build livekit-server v1.13.5 into ~/.cache/ermine for voice (only when absent)
	bash scripts/livekit.sh

contract: ## refresh internal/api/testdata/unexercised.txt, the contract operations no test exercises
	ERMINE_CONTRACT_REPORT=$(CURDIR)/internal/api/testdata/unexercised.txt go test -count=1 ./internal/api/

fuzz: ## run each fuzz target for 30 s (CI runs 5 s each)
	FUZZTIME=30s bash .ci/fuzz

fuzz-corpus: ## fuzz each target for 30 s and keep what it found under testdata/fuzz
	FUZZTIME=30s bash .ci/fuzz --save

bench: ## run the benchmarks
	go test -run '^$$' -bench . -benchmem ./...

load: ## message send rate and latency at 1,000/s (SQLite, then PostgreSQL at $(PG)); history pages are make scale's
	go build -o /tmp/ermine-load ./bench/load
	/tmp/ermine-load --duration 10s --workers 32
	/tmp/ermine-load --duration 20s --rate 1000
	/tmp/ermine-load --duration 10s --workers 32 --database '$(PG)'
	/tmp/ermine-load --duration 20s --rate 1000 --database '$(PG)'

scale: ## growth table: Ready, member lists, search, history pages, bytes per message vs size (SQLite; PG=... SCALE_DB=$(PG) for PostgreSQL, SCALE_ARGS=--big for 1M messages)
	go build -o /tmp/ermine-scale ./bench/scale
	/tmp/ermine-scale $(if $(SCALE_DB),--database '$(SCALE_DB)') $(SCALE_ARGS)

fanout: ## events gateway: 10,000 connections in one channel, memory, latency at 5 messages/s, CPU per delivery
	CGO_ENABLED=0 go build -o /tmp/ermine ./cmd/ermine
	go build -o /tmp/ermine-fanout ./bench/fanout
	/tmp/ermine-fanout --ermine /tmp/ermine --conns 10000 --rate 5 --duration 30s --saturate 300

crossnode: ## several nodes as one instance: 9,000 connections over 3 nodes on PostgreSQL ($(PG)), NATS and a Redis for shared state, messages sent through all three
	CGO_ENABLED=0 go build -o /tmp/ermine ./cmd/ermine
	go build -o /tmp/ermine-fanout ./bench/fanout
	/tmp/ermine-fanout --ermine /tmp/ermine --nodes 3 --conns 9000 --rate 5 --duration 30s --saturate 300 \
		--database '$(PG)' --bus nats --bus-url $(NATS) --shared-url $(REDIS)

compare: ## Ermine, Centrifugo v6.9.1 (else v5.4.9; built once into ~/.cache/ermine) and a bare gobwas server under the same load, one table with Ermine's reconnect row (about 6 min)
	CGO_ENABLED=0 go build -o /tmp/ermine ./cmd/ermine
	go build -o /tmp/ermine-floor ./bench/floor
	go build -o /tmp/ermine-fanout ./bench/fanout
	/tmp/ermine-fanout --compare --pin --ermine /tmp/ermine --floor /tmp/ermine-floor --centrifugo "$$(bash scripts/centrifugo.sh)" \
		--conns 10000 --rate 5 --duration 30s --saturate 300

storm: ## reconnect storm: 10,000 resumable connections drop at once (resume, then full Ready), then the node restarts; all back, no message lost, API p99 (STORM_SHARED=$(REDIS) keeps streams in Redis)
	CGO_ENABLED=0 go build -o /tmp/ermine ./cmd/ermine
	go build -o /tmp/ermine-fanout ./bench/fanout
	/tmp/ermine-fanout --storm --ermine /tmp/ermine --conns 10000 --storm-messages 10 --storm-timeout 2m \
		$(if $(STORM_SHARED),--shared-url '$(STORM_SHARED)')

cover: ## test coverage summary
	go test -coverprofile=cover.out ./... && go tool cover -func=cover.out | tail -1

GOLANGCI_LINT := $(HOME)/.cache/ermine/golangci-lint-v2.15.0/golangci-lint

lint: ## gofmt, vet and golangci-lint (.golangci.yml; built once into ~/.cache/ermine)
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" && go vet ./...
	test -x $(GOLANGCI_LINT) || GOBIN=$(dir $(GOLANGCI_LINT)) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0
	$(GOLANGCI_LINT) run ./...

.PHONY: help run build test test-all clients contract fuzz fuzz-corpus bench load fanout storm cover lint
