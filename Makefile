# vtenant: the two commands a newcomer needs are `make demo` and `make test`.
# Everything else here is what they are made of.

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CTEST_ARGS ?=
# ccache, where installed, makes a second build of a fresh clone cheap.
CCACHE := $(shell command -v ccache 2>/dev/null)
CMAKE_LAUNCHER := $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE))

.PHONY: all deps build test unit integration e2e bench demo down format clean help

all: build

help:
	@echo "make demo         install everything, start the local system, run the three-team scenario"
	@echo "make test         install everything, build, run unit, integration and e2e tests"
	@echo "make deps         Debian packages + pinned Kubernetes binaries (.tools/bin)"
	@echo "make build        configure and build with CMake/Ninja into $(BUILD_DIR)/"
	@echo "make unit|integration|e2e   one label of tests"
	@echo "make bench        build and run the benchmarks (bench/RESULTS.md records them)"
	@echo "make down         stop the local environment started by make demo (its data is kept)"

deps:
	@hack/install-deps.sh
	@hack/build-tools.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_LAUNCHER)

build: $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: deps build
	@hack/run-tests.sh $(BUILD_DIR) $(CTEST_ARGS)

unit integration e2e: build
	@hack/run-tests.sh $(BUILD_DIR) -L $@ $(CTEST_ARGS)

bench: deps build
	@hack/run-benchmarks.sh $(BUILD_DIR)

demo: deps build
	@hack/demo.sh $(BUILD_DIR)

down:
	@$(BUILD_DIR)/cli/vtenant down

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
