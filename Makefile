# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Out-of-tree build of the rdma-kmod modules. See README.md.

KVER ?= $(shell scripts/kver.sh)
KDIR ?= $(shell scripts/kver.sh --kdir $(KVER))
PWD  := $(shell pwd)
W    ?= 1
WERROR ?= 1
JOBS ?= $(shell nproc)

KMAKE = $(MAKE) -C $(KDIR) M=$(PWD) W=$(W) RDMA_KMOD_WERROR=$(WERROR) -j$(JOBS)

.PHONY: all modules install uninstall clean setup check check-host check-vm demo \
	tools vm-shell dkms-check bench compat deb help check-debug debug-kernel fuzz

all: modules

modules:
	@test -d "$(KDIR)" || { echo "no kernel headers at KDIR=$(KDIR); run 'make setup'"; exit 1; }
	$(KMAKE) modules

# The distribution's other RDMA consumers rebuilt on our core (scripts/compat/):
# modules in build/compat/KVER/modules/, what built in build/compat/KVER/status.txt.
compat: modules
	scripts/compat/build.sh --kver $(KVER)

# Ours and the consumers that rebuild (make compat) into /lib/modules/KVER/updates/.
install: modules
	scripts/install-modules.sh --kver $(KVER) --src $(PWD)

uninstall:
	scripts/install-modules.sh --kver $(KVER) --uninstall

# The Debian package rdma-kmod-dkms (DKMS source; build/rdma-kmod-dkms_VERSION_all.deb).
deb:
	scripts/deb/build.sh

clean:
	-$(KMAKE) clean
	rm -rf build

setup:
	scripts/setup.sh

tools: setup
	cmake -S tools -B build/tools -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build/tools -j$(JOBS)

# Every test: host-side tests, then the VM selftests. Last line: "N passed, N failed".
check: setup
	scripts/check.sh --kver $(KVER)

check-host: setup modules tools
	scripts/check.sh --kver $(KVER) --host-only

check-vm: setup modules tools
	scripts/check.sh --kver $(KVER) --vm-only $(if $(T),--test $(T))

# Every VM selftest with our side on the debug kernel (KASAN, lockdep,
# kmemleak, UBSAN...: scripts/debug-kernel/), T=name for one. Builds that
# kernel the first time (an hour or more; cached outside the tree). Not part
# of check; it passes before an issue is called resolved (DEVELOPERS.md).
# The suite outlasts a working day under TCG: a run goes on from the tests
# an earlier one passed at the same tree (FRESH=1: from the start).
check-debug: setup tools
	scripts/check.sh --kernel-flavour debug $(if $(T),--test $(T)) $(if $(FRESH),--fresh)

# The long fuzz runs on the debug kernel (scripts/fuzz.sh): FUZZ_SEED,
# FUZZ_SYS_CALLS, FUZZ_WIRE_PACKETS (a million each by default), in chunks
# (FUZZ_CHUNK_CALLS, FUZZ_CHUNK_PACKETS) that a later run at the same tree
# goes on from.
fuzz: setup
	scripts/fuzz.sh

# Only the debug kernel (prints its cache directory).
debug-kernel:
	scripts/debug-kernel/build.sh

demo: setup modules tools
	scripts/vm/run.sh --kver $(KVER) --test demo --verbose

vm-shell: setup modules tools
	scripts/vm/run.sh --kver $(KVER) --shell

# Speed of our rxe against the stock one (not part of check).
bench: setup modules
	scripts/bench/run.sh

dkms-check: setup
	selftests/host/deb.sh --kver $(KVER)

help:
	@sed -n 's/^\([a-z-]*\):.*/\1/p' Makefile | sort -u
