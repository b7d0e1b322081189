# Everything a newcomer needs goes through here; nothing is assumed installed
# beyond python3 (>= 3.11) with venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
## The tests run in two workers a core (pytest-xdist; PYTEST_JOBS=0 runs them in pytest's own
## process): each test starts its own ptys, brokers and databases in its own temporary
## directory, and a worker spends most of its time waiting on them (its own CPU time was a
## quarter of its wall time), so one worker a core left the cores idle: on 2 cores the unit
## tests took 561 s with 2 workers and 469 s with 4, on the same load (docs/testing.md).
PYTEST_JOBS ?= $(shell echo $$(( 2 * $$(nproc) )))

.PHONY: run test system-deps lint typecheck unit bench systemd-check clean deb vm-test floor-demo \
    compiled firmware firmware-test image mutate

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,floor]'
	touch $(STAMP)

## The station's main job on a laptop: the whole station against simulated devices.
SIM_JOURNAL ?= simulation-$(shell date +%Y%m%d-%H%M%S).sqlite3
run: $(STAMP)
	$(BIN)/dealer-station simulate --rounds 200 --seed 1 --journal $(SIM_JOURNAL)

## The whole test suite: lint, format, types, unit and HIL tests, and the boot test.
## Debian packages the tests need: systemd-analyze, -sysusers and -tmpfiles check the units;
## debhelper, dh-virtualenv, a C compiler and python3.11-dev build the .deb (make deb),
## lintian checks it; mmdebstrap, mkfs.ext4, QEMU and qemu-img (qemu-utils) boot it
## (make vm-test); the floor tests start mosquitto (TLS certificates from openssl),
## PostgreSQL 15 and headless Chromium;
## qemu-user-static and arch-test let mmdebstrap make arm64 roots (vm_tests/arm64.py, the arm64
## package's build root, the Raspberry Pi image); gcc-aarch64-linux-gnu and its libc compile the
## arm64 rules engine (make deb ARCH=arm64); dosfstools, mtools and fdisk make the image's
## partitions (make image); qemu-system-arm boots it (vm_tests/test_boot_arm64.py) and runs
## the device firmware: gcc-arm-none-eabi and picolibc-arm-none-eabi build it for a Cortex-M,
## run on emulated mps2-an385 boards (firmware/, docs/firmware.md).
SYSTEM_COMMANDS := systemd-analyze dpkg-buildpackage dh_virtualenv gcc lintian mmdebstrap \
    mkfs.ext4 qemu-system-x86_64 qemu-img mosquitto mosquitto_passwd openssl chromium chromedriver \
    /usr/lib/postgresql/15/bin/initdb qemu-aarch64-static arch-test arm-none-eabi-gcc strace \
    qemu-system-arm /usr/lib/picolibc/arm-none-eabi/picolibc.specs qemu-system-aarch64 \
    aarch64-linux-gnu-gcc mkfs.vfat mcopy sfdisk ccache
system-deps:
	@missing=; for c in $(SYSTEM_COMMANDS); do command -v $$c >/dev/null || [ -f $$c ] || missing="$$missing $$c"; done; \
	[ -f /usr/include/python3.11/Python.h ] || missing="$$missing Python.h"; \
	[ -f /usr/aarch64-linux-gnu/lib/crti.o ] || missing="$$missing libc6-dev-arm64-cross"; \
	[ -z "$$missing" ] || { echo "system-deps: installing for$$missing"; \
	    if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	    $$SUDO apt-get update && $$SUDO apt-get install -y --no-install-recommends systemd debhelper dh-virtualenv build-essential python3.11-dev python3.11-venv lintian mmdebstrap e2fsprogs qemu-system-x86 qemu-utils qemu-user-static arch-test mosquitto postgresql chromium chromium-driver openssl gcc-arm-none-eabi picolibc-arm-none-eabi qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross dosfstools mtools fdisk strace ccache; }

test: system-deps
	$(MAKE) -j2 --output-sync=target lint typecheck compiled firmware
	$(MAKE) unit firmware-test vm-test

## The C compilers run through ccache (its cache in ~/.cache/ccache, paths under this
## checkout made relative, so a fresh clone finds what another compiled): the firmware's
## three builds and the compiled rules engine's C, about 100 s, compile again only what changed.
CCACHE := $(shell command -v ccache 2>/dev/null)
FIRMWARE_MAKE = $(MAKE) -s -C firmware CC="$(CCACHE) cc" ARM_CC="$(CCACHE) arm-none-eabi-gcc"
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

## The tests start hundreds of Pythons (the station's commands, the floor's services, the
## benchmarks): each reads the compiled bytecode its first start left in __pycache__/
## (ignored by git, left out of the package) instead of compiling every module again, also
## where the environment says PYTHONDONTWRITEBYTECODE (pytest's rewritten test modules too).
test unit compiled firmware-test vm-test: export PYTHONDONTWRITEBYTECODE =

## The unit and HIL tests' temporary files (pytest's tmp_path, every tempfile: journals,
## databases, brokers' folders) on /dev/shm when it is a tmpfs that runs programs: the
## journal's fsyncs then wait for no disk (tests/test_journal_rotate.py and
## test_journal_verify_walk.py took 132 s on this machine's disk, 27 s there). A full disk
## is tested on small tmpfs mounts of the tests' own; the boot tests keep the default (their
## guests' disks are files of hundreds of MB).
TEST_TMPDIR := $(shell o=$$(findmnt -no FSTYPE,OPTIONS /dev/shm 2>/dev/null); \
    case "$$o" in (tmpfs*noexec*) ;; (tmpfs*) echo /dev/shm ;; esac)
ifneq ($(TEST_TMPDIR),)
unit compiled firmware-test: export TMPDIR = $(TEST_TMPDIR)
endif

## The device firmware in C (firmware/, docs/firmware.md): host builds, the sanitized test
## and fuzz harnesses, and the Cortex-M images for QEMU's mps2-an385 (incremental).
firmware: system-deps
	$(FIRMWARE_MAKE) -j2 host san arm

## Its known-answer vectors in C (ASan/UBSan), then the HIL suite with the shoe and the
## panel board as the C firmware's host builds (the soak, which builds its own doubles,
## runs once in unit). The emulated-board rounds and the firmware's attack and fuzz tests
## run in unit (tests/test_firmware_*.py).
firmware-test: firmware $(STAMP)
	$(FIRMWARE_MAKE) test
	$(BIN)/pytest -q -n $(PYTEST_JOBS) -p no:cacheprovider hil_tests --devices firmware -m "not soak"

## The Debian package, build/deb/dealer-station_<version>_<arch>.deb (debian/, dh-virtualenv);
## ARCH=arm64 builds the Raspberry Pi's on this machine (vm_tests/debbuild_arm64.py).
deb: system-deps $(STAMP)
	$(PYTHON) vm_tests/debbuild.py $(if $(ARCH),--arch $(ARCH))

## The flashable Raspberry Pi image, build/image/dealer-station-pi-arm64.img (pi-image/,
## vm_tests/pi_image.py; docs/operations.md, "The image"); builds the arm64 package first.
image: system-deps $(STAMP)
	$(PYTHON) vm_tests/pi_image.py

## The package booted in a Debian 12 VM under QEMU with the devices on USB, and the Raspberry
## Pi image booted on arm64 (vm_tests/): the two guests at once, a file to a worker (their
## tests wait on timers in the guests, NTP polls and watchdogs, which then overlap).
vm-test: system-deps $(STAMP)
	$(BIN)/pytest -q -n 2 --dist loadfile -p no:cacheprovider --durations=12 vm_tests

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## mypy --strict, one run over what [tool.mypy] files in pyproject.toml lists: the packages,
## bench/ and vm_tests/.
typecheck: $(STAMP)
	$(BIN)/mypy

## The rules engine compiled with mypyc (setup.py, [tool.dealer-station] in pyproject.toml),
## installed with the rest of the package into build/mypyc; rebuilt (~20 s) only when its
## sources change. Use it with PYTHONPATH=build/mypyc; `pip install .` stays pure Python.
MYPYC := build/mypyc
MYPYC_STAMP := $(MYPYC)/.built
$(MYPYC_STAMP): $(STAMP) setup.py pyproject.toml $(wildcard controller/rules/*.py) \
    controller/simulation/strategy.py controller/simulation/montecarlo.py
	rm -rf $(MYPYC) build/mypyc-objects
	DEALER_STATION_MYPYC=1 CC="$(CCACHE) gcc" nice $(BIN)/pip install --quiet --no-deps \
	    --no-build-isolation --target $(MYPYC) .
	touch $@
compiled: $(MYPYC_STAMP)

## The whole suite on the pure-Python modules, then on the compiled ones the rules tests and
## the table tests that drive a Round (procedure, hole card, recovery, replay): ~16 s.
COMPILED_TESTS := tests/test_rules_*.py tests/test_strategy.py tests/test_house_edge.py \
    tests/test_montecarlo.py tests/test_procedure.py tests/test_holecard.py tests/test_recovery.py \
    tests/test_replay.py
unit: $(STAMP) $(MYPYC_STAMP) firmware
	$(BIN)/pytest -q -n $(PYTEST_JOBS) --durations=15
	DEALER_STATION_EXPECT_COMPILED=1 PYTHONPATH=$(MYPYC) $(BIN)/pytest -q -n $(PYTEST_JOBS) \
	    -p no:cacheprovider $(COMPILED_TESTS)

## The casino floor on this machine: broker, database, collector, monitor and eight
## simulated stations; prints the monitor's URL and logins (docs/floor.md). Ctrl-C stops all.
floor-demo: system-deps $(STAMP)
	$(BIN)/python -m floor.demo

## Every benchmark under bench/ (a few minutes); writes docs/performance.md.
bench: system-deps $(STAMP) $(MYPYC_STAMP)
	$(BIN)/python bench/run_all.py

## Mutation testing with mutmut (docs/testing.md); not part of `make test`. One package
## (PACKAGE=controller/journal) or one module (MODULE=controller/journal/seal.py), default the
## target packages of mutation/map.toml; BUDGET seconds (it resumes where it stopped), JOBS
## mutants at once, FRESH=1 forgets earlier results, REPORT=1 only reports the last results.
## Writes build/mutation/<package>.md and, for a whole package, its figures in docs/testing.md.
BUDGET ?= 3600
JOBS ?= 2
mutate: $(STAMP)
	nice -n 19 $(BIN)/python mutation/run.py --budget $(BUDGET) --jobs $(JOBS) \
	    $(if $(PACKAGE),--package $(PACKAGE)) $(if $(MODULE),--module $(MODULE)) \
	    $(if $(FRESH),--fresh) $(if $(REPORT),--report-only)

## The systemd units (the station's and the floor's), udev rules and sysusers/tmpfiles snippets
## (also part of `unit`).
systemd-check: $(STAMP)
	$(BIN)/pytest -q -s tests/test_systemd_units.py tests/test_floor_units.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis $(MYPYC) build/mypyc-objects
