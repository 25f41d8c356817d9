# voxkit. `make run` serves the example server on 127.0.0.1 with the
# embedded voices; `make test` runs the whole test suite. Both first
# install what the machine is missing (Debian/Ubuntu packages, ONNX Runtime).

GO        ?= go
ADDR      ?= 127.0.0.1:8080
ORT_DIR   := $(CURDIR)/.cache/onnxruntime
BIN       := $(CURDIR)/bin

NODE_SDK  := $(CURDIR)/.cache/node-sdk

export ONNXRUNTIME_LIB ?= $(ORT_DIR)/libonnxruntime.so.1
export VOXKIT_NODE_SDK_DIR ?= $(NODE_SDK)

.PHONY: run test build build-server deps-run deps-test deps-bench onnxruntime node-sdk bench vet fuzz clean

## run: install what is missing, build, and serve the OpenAI-compatible API and
## playground on http://$(ADDR) (first start prints the password of account local and an API key; data in ./data).
## VOICES=dir adds Piper voices and Kokoro models; WYOMING=127.0.0.1:10200 also serves Wyoming for Home Assistant
## (WYOMING=0.0.0.0:10200 for a Home Assistant on another host; ZEROCONF=1 announces it over mDNS)
run: deps-run build-server $(if $(VOICES),onnxruntime)
	$(BIN)/server -addr $(ADDR) -data $(CURDIR)/data $(if $(VOICES),-voices $(VOICES)) \
		$(if $(WYOMING),-wyoming-addr $(WYOMING)) $(if $(ZEROCONF),-wyoming-zeroconf)

## test: install what is missing and run every test with the race detector
test: deps-test onnxruntime node-sdk
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./tts/... ./tags/... ./voices/... ./encode ./server/...
	@! grep -rn '"github.com/voxkit/voxkit/internal' examples/ || (echo "examples/ must use only the public API" && false)
	$(GO) test -race -count=1 -timeout 30m ./...
	cd examples/deploy/helm && $(GO) vet ./... && $(GO) test -count=1 ./...
	$(GO) test -count=1 -run 'TestMemoryAtTheAudioLimit' ./server
	$(GO) test -count=1 -run 'TestMemoryPerRequest' ./examples/server
	$(GO) test -count=1 -run 'TestLongRunsGiveMemoryBack' ./engine/onnx
	$(GO) test -run '^$$' -fuzz FuzzSpeak -fuzztime $(CI_FUZZTIME) -fuzzminimizetime 200x ./tts/espeaktts

## build: build every example into bin/
build:
	$(GO) build -o $(BIN)/ ./examples/...

# build-server builds only what make run serves (bin/server): the other
# examples wait for make build.
build-server:
	$(GO) build -o $(BIN)/server ./examples/server

deps-run:
	@sh .ci/deps.sh run

deps-test:
	@sh .ci/deps.sh test

deps-bench:
	@sh .ci/deps.sh bench

## onnxruntime: fetch libonnxruntime.so.1 (Piper and Kokoro voices need it) into .cache/onnxruntime
onnxruntime:
	@test -s "$(ONNXRUNTIME_LIB)" || sh .ci/install-onnxruntime.sh "$(ORT_DIR)" >/dev/null

# The official Node SDKs internal/e2e drives the server with (OpenAI,
# ElevenLabs, Cartesia, LiveKit's ElevenLabs plugin), TypeScript, and
# sherpa-onnx-node, engine/pocket's peer in its parity test and benchmarks; pinned.
node-sdk:
	@sh .ci/install-node-sdk.sh "$(VOXKIT_NODE_SDK_DIR)" >/dev/null

## bench: benchmarks behind the figures in the README and issue notes
bench: deps-bench onnxruntime node-sdk
	$(GO) test -run '^$$' -bench . -benchmem ./...

vet:
	$(GO) vet ./...

## fuzz: a minute of each fuzz target (FUZZTIME=10m for longer)
FUZZTIME ?= 60s
# CI_FUZZTIME bounds the run of FuzzSpeak (text through libespeak-ng) that
# make test ends with: a count of inputs (about 90 s here), not a duration.
# Go 1.26's fuzzing coordinator can fail a target that found nothing with
# "context deadline exceeded" when a duration runs out (go.dev/issue/75804,
# fixed in Go 1.27); a count sets no deadline.
CI_FUZZTIME ?= 3000x
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzSpeak -fuzztime $(FUZZTIME) -fuzzminimizetime 10s ./tts/espeaktts
	$(GO) test -run '^$$' -fuzz FuzzEncoders -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./encode
	$(GO) test -run '^$$' -fuzz FuzzWriter -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./internal/codec/ogg
	$(GO) test -run '^$$' -fuzz FuzzSplit -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./engine/sentence
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./tags
	$(GO) test -run '^$$' -fuzz FuzzTagsReachEngine -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./tts
	$(GO) test -run '^$$' -fuzz FuzzApplyLexicons -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./tts
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./lexicon
	$(GO) test -run '^$$' -fuzz FuzzFind -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./lexicon
	$(GO) test -run '^$$' -fuzz FuzzSpeechBody -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./internal/e2e
	$(GO) test -run '^$$' -fuzz FuzzParseVoiceCreate -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./server/wire

clean:
	rm -rf $(BIN)
