# vtenant: the two commands a newcomer needs are `make demo` and `make test`.
# Everything else here is what they are made of.

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CTEST_ARGS ?=
# ccache, where installed, makes a second build of a fresh clone cheap.
# Asked when the build folder is configured, after install-deps put it there.
CMAKE_LAUNCHER = $$(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

.PHONY: all deps build test unit integration e2e bench demo down format clean help

all: build

help:
	@echo "make demo         install everything, start the local system, run the three-team scenario"
	@echo "make test         install everything, build, run unit, integration and e2e tests"
	@echo "make deps         Debian packages + pinned Kubernetes binaries, the real node's too (.tools/bin)"
	@echo "make build        configure and build with CMake/Ninja into $(BUILD_DIR)/"
	@echo "make unit|integration|e2e   one label of tests"
	@echo "make bench        build and run the benchmarks (bench/RESULTS.md records them)"
	@echo "make down         stop the local environment started by make demo (its data is kept)"

# The real node's kubelet and kube-proxy are built for the tests (and
# `vtenant up --real-node`), never for `make demo`.
deps:
	@hack/install-deps.sh
	@hack/build-tools.sh
	@hack/build-tools.sh kubelet kube-proxy

$(BUILD_DIR)/build.ninja:
	@hack/install-deps.sh
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_LAUNCHER)

build: $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: deps build
	@hack/run-tests.sh $(BUILD_DIR) $(CTEST_ARGS)

unit integration e2e: build
	@hack/run-tests.sh $(BUILD_DIR) -L $@ $(CTEST_ARGS)

bench: deps build
	@hack/run-benchmarks.sh $(BUILD_DIR)

# What the demo runs, and only that, first: a newcomer's first `make demo`
# builds neither kube-scheduler (benchmarks only) nor the tests. `make test`
# builds the rest later, reusing the same caches.
DEMO_TOOLS := kube-apiserver kube-controller-manager kubectl etcd helm kwok
DEMO_TARGETS := vtenant vtenant-scheduler vtenant-operator vtenant-syncer

demo: $(BUILD_DIR)/build.ninja
	@echo "demo: step 1/3, Debian packages"
	@hack/install-deps.sh
	@echo "demo: step 2/3, the Kubernetes binaries from Go modules, then the four programs"
	@hack/build-for-demo.sh $(BUILD_DIR) $(JOBS) "$(DEMO_TOOLS)" "$(DEMO_TARGETS)"
	@echo "demo: step 3/3, the local system and the three-team scenario"
	@hack/demo.sh $(BUILD_DIR)

down:
	@$(BUILD_DIR)/cli/vtenant down

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
