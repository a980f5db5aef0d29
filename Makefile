# FleetMesh — the two commands a newcomer needs: `make demo` and `make test`.
SWIFT ?= swift
# Lab tests spawn real nodes and avahi-daemons; they run after the unit suites so their timing bounds are not
# measured on a machine busy with the simulation seeds.
# The simulations iterate dictionaries and sets, whose order Swift randomizes per process unless told otherwise: with
# SWIFT_DETERMINISTIC_HASHING=1 a seed replays exactly (the unit suites and the soak; not the lab's real nodes).
DETERMINISTIC := SWIFT_DETERMINISTIC_HASHING=1
LAB_SUITES := MeshLabTests|DeploymentLabTests|OutageLabTests|CoordinatorLabTests|MapOriginLabTests|TargetSourceLabTests|FleetLabTests|AvoidanceLabTests|MAVLinkLabTests|DemoLabTests|DashboardLabTests|FlightLogLabTests|ShippingLabTests|InspectionLabTests|AirtimeLabTests

.PHONY: all setup build test unit-test lab-test demo bench bench-mallocs bench-count bench-datagram-count soak deb deb-check format format-check openapi clean

all: build

setup:
	@bash scripts/setup-system

build: setup
	$(SWIFT) build

test: build
	$(SWIFT) build --build-tests
	$(DETERMINISTIC) $(SWIFT) test --skip-build --skip '$(LAB_SUITES)'
	$(SWIFT) test --skip-build --no-parallel --filter '$(LAB_SUITES)'

unit-test:
	$(DETERMINISTIC) $(SWIFT) test --skip '$(LAB_SUITES)'

lab-test: build
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel --filter '$(LAB_SUITES)'

demo: build
	@bash scripts/demo

bench: setup
	$(SWIFT) build -c release --product fleetmesh
	$(SWIFT) build -c release --product fleetmesh-bench
	FLEETMESH_BIN=$(CURDIR)/.build/release/fleetmesh .build/release/fleetmesh-bench $(GROUPS)

# The secure transport's hot path, from the package in Benchmarks/ (ordo-one/benchmark; neither `make test` nor CI
# builds it): wall clock and mallocs per datagram; and instructions per datagram, counted by valgrind's callgrind
# (repeatable on a busy machine) as the difference between 100,000 round trips and none. valgrind 3.19 cannot read
# the DWARF 5 of Swift 6.3 binaries: it runs on a copy without debug information. docs/BENCHMARKS.md, Secure transport.
bench-mallocs:
	$(SWIFT) package --package-path Benchmarks benchmark

COUNT_BIN := Benchmarks/.build/release/secure-transport-count
bench-count:
	$(SWIFT) build --package-path Benchmarks -c release --product secure-transport-count
	objcopy --strip-debug $(COUNT_BIN) $(COUNT_BIN).nodebug
	@for form in buffers arrays group; do \
		z=$$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $(COUNT_BIN).nodebug 0 $$form 2>&1 \
			| sed -n 's/.*Collected : \([0-9]*\).*/\1/p'); \
		n=$$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $(COUNT_BIN).nodebug 100000 $$form 2>&1 \
			| sed -n 's/.*Collected : \([0-9]*\).*/\1/p'); \
		echo "seal+open 200 B, $$form: $$(( (n - z) / 100000 )) instructions per datagram"; \
	done

# The station's instructions per input under 100 drones on the ground (`fleetmesh-sim station-traffic`: the steady
# state's inputs replayed into a copy of the station, each kind through a function of its own), from callgrind's
# inclusive counts of those functions. Same DWARF 5 note as above. docs/BENCHMARKS.md, Secure transport §2.2.
# GROUP=1: the same star on one shared link, every drone on the group channel (BENCHMARKS.md §7.8).
SIM_BIN := .build/release/fleetmesh-sim
bench-datagram-count:
	$(SWIFT) build -c release --product fleetmesh-sim
	objcopy --strip-debug $(SIM_BIN) $(SIM_BIN).nodebug
	valgrind --tool=callgrind --callgrind-out-file=$(SIM_BIN).callgrind $(SIM_BIN).nodebug \
		station-traffic --drones $${DRONES:-100} --seconds 2 --replays 1 $${GROUP:+--group} > $(SIM_BIN).out 2>/dev/null
	@cat $(SIM_BIN).out
	@callgrind_annotate --inclusive=yes --threshold=100 $(SIM_BIN).callgrind 2>/dev/null | tr -d ',' | awk -v counts="$$(cat $(SIM_BIN).out)" ' \
		BEGIN { split(counts, w, /[ ,]+/); for (i in w) { if (w[i] == "datagrams" && w[i+1] ~ /^[0-9]+$$/ && !d) d = w[i+1]; \
			if (w[i] == "mesh") m = w[i+2]; if (w[i] == "coordinator") c = w[i+2] } } \
		/replayStationDatagram/ { printf "instructions per received datagram: %d\n", $$1 / d } \
		/replayStationMeshTick/ { printf "instructions per 10 ms mesh tick: %d\n", $$1 / m } \
		/replayStationCoordinatorTick/ { printf "instructions per 50 ms coordinator tick: %d\n", $$1 / c }'

soak: build
	$(DETERMINISTIC) MESHSIM_SEEDS=$${MESHSIM_SEEDS:-20000} MESHSIM_COMPRESSED_SEEDS=$${MESHSIM_COMPRESSED_SEEDS:-3000} \
		$(SWIFT) test --filter MeshSimulationTests
	$(SWIFT) build -c release --product fleetmesh-sim
	$(DETERMINISTIC) $(SWIFT) run -c release --skip-build fleetmesh-sim outages --seeds $${MESHSIM_OUTAGE_SEEDS:-1000}
	$(DETERMINISTIC) AVOIDANCE_SEEDS=$${AVOIDANCE_SEEDS:-20000} $(SWIFT) test --filter AvoidanceTests

# The Debian package (docs/DEPLOYMENT.md): a release build with the Swift runtime and Foundation linked in, then
# scripts/make-deb writes .build/deb/fleetmesh_VERSION_ARCH.deb. `make deb-check` installs the newest one in a fresh
# Debian 12 root (debootstrap, cached in /var/cache/fleetmesh-deb-check; needs root) and checks it. Neither is part
# of `make test`; scripts/verify-units checks the unit files in a second.
# -z now, relro: the binary's relocations are resolved at start and then made read-only (lintian's hardening checks).
deb: setup
	$(SWIFT) build -c release --product fleetmesh --static-swift-stdlib -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
	bash scripts/make-deb --binary .build/release/fleetmesh --out .build/deb

deb-check:
	@deb=$$(ls -t .build/deb/*.deb 2>/dev/null | head -1); [ -n "$$deb" ] || { echo "deb-check: no .build/deb/*.deb (make deb)" >&2; exit 1; }; \
		bash scripts/deb-check "$$deb" && bash scripts/deb-boot-check "$$deb"

# swift format (ships with the toolchain), configured by .swift-format. CI runs format-check before the tests.
# Sources/MAVLink/Generated carries `// swift-format-ignore-file` (Tools/mavgen writes it; a test compares the two), and
# so does Sources/Dashboard/Generated (`make openapi`).
FORMAT_PATHS := Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/SecureTransportAllocations Benchmarks/Tools

format:
	@$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_PATHS)

format-check:
	@$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS) || { echo "format-check: run 'make format' (configuration in .swift-format)" >&2; exit 1; }

# The dashboard's server code (Sources/Dashboard/Generated) is generated from its OpenAPI document and committed: run
# `make openapi` after editing Sources/Dashboard/Web/openapi.yaml (docs/DASHBOARD.md: how to add an endpoint). The
# generator (swift-openapi-generator) is built apart in Tools/openapi, about 1.5 minutes the first time, so that
# neither the main package nor CI ever builds it; a unit test fails when the generated code is older than the document.
OPENAPI_DOCUMENT := Sources/Dashboard/Web/openapi.yaml
OPENAPI_CONFIG := Tools/openapi/openapi-generator-config.yaml
OPENAPI_OUT := Sources/Dashboard/Generated

openapi:
	$(SWIFT) build --package-path Tools/openapi --product swift-openapi-generator
	rm -f $(OPENAPI_OUT)/*.swift
	Tools/openapi/.build/debug/swift-openapi-generator generate --config $(OPENAPI_CONFIG) \
		--output-directory $(OPENAPI_OUT) $(OPENAPI_DOCUMENT)
	python3 Tools/openapi/operations.py $(OPENAPI_DOCUMENT) $(OPENAPI_CONFIG) $(OPENAPI_OUT)/APIOperations.swift

clean:
	-bash scripts/lab down
	$(SWIFT) package clean
