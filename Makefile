# SPDX-License-Identifier: GPL-2.0
#
# lockmeter: build an instrumented Linux 6.12, boot it in QEMU, test it.
#
#   make demo     build what is missing, boot, meter a workload, print the
#                 lockstat report (SCENARIO=NAME: a real kernel trouble
#                 instead, SCENARIO=list names them)
#   make check    host unit tests, then boot and run KUnit + kselftests
#   make deb      Debian packages of the kernel (KCONFIG=your config) and
#                 of lockstat, in build/deb
#
# Everything produced goes under build/.  See README.md.

BUILD      := $(CURDIR)/build
# The kernel line: Debian's linux-source-$(KVER), patches/linux-$(KVER).
# 6.12 is the default and keeps the names below; another line (6.1) has
# its own tree, objects, initramfs and logs, each name with -$(KVER)
# (build/linux-6.1, build/obj-6.1, build/check-6.1.log ...), and its steps
# in make's table say so.  PREEMPT_RT is a 6.12 kernel only.
KVER       ?= 6.12
KLINES     := 6.12 6.1
ifeq ($(filter $(KVER),$(KLINES)),)
$(error KVER=$(KVER): lockmeter has the kernel lines $(KLINES))
endif
comma      := ,
L          := $(if $(filter 6.12,$(KVER)),,-$(KVER))
LSTEP      := $(if $(filter 6.12,$(KVER)),,$(comma) Linux $(KVER))
KSRC       ?= $(BUILD)/linux-$(KVER)
KOBJ       ?= $(BUILD)/obj$(L)
MODROOT    := $(BUILD)/modroot$(L)
KSFT_DIR   := $(BUILD)/kselftest$(L)
INITRD     := $(BUILD)/initramfs$(L).cpio.gz
BZIMAGE    := $(KOBJ)/arch/x86/boot/bzImage
LOCKSTAT   := $(BUILD)/lockstat/lockstat
SMP        ?= 2
WIDE_SMP   ?= 8
TIMEOUT    ?= 1200
CMDLINE    ?=
# The guest kernel of make check: lockdep (config/lockdep.config: the
# validator, DEBUG_ATOMIC_SLEEP, CPU hotplug, locktorture, lock_stat, the
# lock trace events) and the scenarios' block layer, ext4 and virtio disk.
# The PREEMPT_RT kernel has no scenarios, the distro-sized one no lockdep.
FRAGS_BASE := config/qemu-$(KVER).config config/lockmeter.config
FRAGMENTS  := $(FRAGS_BASE) config/scenarios.config config/lockdep.config
# make demo SCENARIO=NAME; the scenario tests boot once for all of them.
# upgrade is the upgrade hunt: the munmap workload on both kernel lines
# and lockstat diff of the two (scripts/scenarios/upgrade.sh).
SCENARIOS  := fifo munmap journal upgrade
SCENARIO   ?=
LMSCENARIO := $(BUILD)/scenarios/lmscenario
JOURNAL_IMG := $(BUILD)/scenario-journal.img
# the journal scenario's disk bandwidth, bytes/s, reads and writes together
JOURNAL_BPS ?= 4194304
# make demo's kernel: the guest kernel without lockdep, whose validator
# and lock_stat would be in every hold the demo shows.  make check does
# not build it: the distro-sized kernel is its kernel without lockdep.
KOBJ_DEMO  := $(BUILD)/obj-demo$(L)
MODROOT_DEMO := $(BUILD)/modroot-demo$(L)
INITRD_DEMO := $(BUILD)/initramfs-demo$(L).cpio.gz
BZIMAGE_DEMO := $(KOBJ_DEMO)/arch/x86/boot/bzImage
FRAGS_DEMO := $(FRAGS_BASE) config/scenarios.config
# The PREEMPT_RT kernel: spinlock_t and rwlock_t are rtmutexes there,
# metered as sleeping locks (config/rt.config, with lockdep).  make check
# boots it for KUnit and locktorture of every lock type it has
# (RT_TORTURE) while metering flips, then the kselftests RT_TESTS: all
# of them.  They name the rows of spinlock_t and rwlock_t as PREEMPT_RT
# meters them (rt_spin, rt_read, rt_write: lm_type() in
# selftests/lockmeter_lib.h) and expect what a sleeping spinlock_t does
# there (an owner, a raw wait_lock inside, migration off while held,
# softirqs in tasks); the check of the qspinlock slow path, which
# PREEMPT_RT's spinlock_t never takes, skips.
KOBJ_RT    := $(BUILD)/obj-rt
MODROOT_RT := $(BUILD)/modroot-rt
INITRD_RT  := $(BUILD)/initramfs-rt.cpio.gz
BZIMAGE_RT := $(KOBJ_RT)/arch/x86/boot/bzImage
FRAGS_RT   := $(FRAGS_BASE) config/rt.config
BOOT_LOG_RT := $(BUILD)/torture-rt.log
ifneq ($(KVER),6.12)
# No architecture selects ARCH_SUPPORTS_RT before 6.12; make check is run
# from the 6.12 line, and boots the other line's kernel itself (below).
ifneq ($(filter kernel-rt initramfs-rt boot-rt check-rt check guest-check,$(MAKECMDGOALS)),)
$(error $(filter kernel-rt initramfs-rt boot-rt check-rt check guest-check,$(MAKECMDGOALS)) is for KVER=6.12 only)
endif
endif
RT_TORTURE := spin_lock,rw_lock,raw_spin_lock,mutex_lock,rwsem_lock,ww_mutex_lock,rtmutex_lock,percpu_rwsem_lock
RT_TESTS   ?= lockmeter:crosscheck_test,lockmeter:proc_test,lockmeter:metering_test,lockmeter:sleeping_test,lockmeter:overflow_test,lockmeter:snapshot_test,lockmeter:netlink_test,lockmeter:pipe_test,lockmeter:bench_test,lockmeter:module_test,lockmeter:nl_fuzz,lockmeter:task_test,lockmeter:types_test,lockmeter:lockstat_test.sh,lockmeter:watch_test.sh
# The distro-sized kernel: x86_64_defconfig + config/distro.config
# (PREEMPT_DYNAMIC, PARAVIRT_SPINLOCKS, NR_CPUS=64, modules, histograms
# off), built and booted by make check only when its sources changed
# (scripts/distro-check.sh); DISTRO=force always.
KOBJ_DI    := $(BUILD)/obj-distro
MODROOT_DI := $(BUILD)/modroot-distro
INITRD_DI  := $(BUILD)/initramfs-distro.cpio.gz
BZIMAGE_DI := $(KOBJ_DI)/arch/x86/boot/bzImage
FRAGS_DI   := config/distro.config
BOOT_LOG_DI := $(BUILD)/check-distro.log
DISTRO     ?=
# The scale boot: the distro-sized kernel on SCALE_SMP vCPUs (single-
# threaded TCG, as the other boots) with SCALE_MEM MiB, lockmeter=on, under
# Debian's stress-ng (scripts/guest/scale.sh); it boots when the distro-
# sized kernel does.
STRESS_NG  := /usr/bin/stress-ng
SCALE_SMP  ?= 8
SCALE_MEM  ?= 1024
BOOT_LOG_SC := $(BUILD)/scale-distro.log
# make check on the other kernel line, LINE2 (6.1): its guest kernel,
# lockdep and all (the same fragments on its own qemu-6.1.config), booted
# for KUnit and the kselftests, and for locktorture of every lock type
# while metering flips, resets and dumps: make KVER=6.1 boot-check and
# boot-torture, whose logs have -6.1 in their names.
LINE2      := 6.1
BOOT_LOGS_2 := $(BUILD)/check-$(LINE2).log $(BUILD)/torture-lockdep-$(LINE2).log
# The upgrade hunt in make check: each line's guest kernel boots for the
# munmap workload (lmguest=upgrade) with slab_nomerge, so that mmap_lock
# is named by its own cache on both (6.12 merges mm_struct's into
# kmalloc-2k otherwise); the host diffs the two snapshots and checks what
# the diff names (scripts/scenarios/upgrade.sh): build/upgrade.tap.
UPGRADE_ARGS := slab_nomerge
BOOT_LOG_UP := $(BUILD)/upgrade$(L).log
UPGRADE_LOGS := $(BUILD)/upgrade-$(LINE2).log $(BUILD)/upgrade.log
UPGRADE_TAP := $(BUILD)/upgrade.tap
# make deb: packages in DEB from KCONFIG, built in KOBJ_DEB.  KCONFIG is
# by default the running kernel's config if that kernel is of the line
# built (/boot/config-$(uname -r)), else the newest config of the line in
# /boot (/boot/config-6.1.* for KVER=6.1: a Debian 12 user's stock
# kernel), else the running kernel's.  make check packages the guest's
# config in KOBJ_DEBG (a sibling of KOBJ, so ccache hits its objects) into
# DEB_GUEST and boots that package's kernel; make deb-check KVER=6.1 does
# the same on the other line.
DEB        := $(BUILD)/deb$(L)
RUNNING_KCONFIG := $(wildcard /boot/config-$(shell uname -r))
LINE_KCONFIG := $(lastword $(shell ls -v /boot/config-$(KVER).* 2>/dev/null))
KCONFIG    ?= $(or $(filter /boot/config-$(KVER).%,$(RUNNING_KCONFIG)),$(LINE_KCONFIG),$(RUNNING_KCONFIG))
KOBJ_DEB   ?= $(BUILD)/obj-deb$(L)
KOBJ_DEBG  := $(BUILD)/obj-deb-guest$(L)
DEB_GUEST  := $(DEB)/guest
DEB_BOOT   := $(BUILD)/deb-boot$(L)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# Each step of make check runs through scripts/step.sh, which notes its
# wall time in $(STEPS) (LM_STEPS in the environment: make check sets it);
# make check ends with their table (scripts/steps.sh).
STEP       := scripts/step.sh
STEPS      := $(BUILD)/steps.tsv

.PHONY: all deps tree install-kernel-tree kernel selftests lockstat initramfs check \
	host-check check-compile guest-check demo bench bench-quick shell patch checkpatch clean help \
	kernel-demo initramfs-demo check-lockdep bench-held kernel-distro initramfs-distro \
	kernel-rt initramfs-rt check-rt \
	check-distro check-scale deb deb-kernel deb-lockstat deb-config deb-guest \
	deb-test deb-check scenarios check-scenarios keyflip readme-timings deb-lockstat-check \
	initramfs-soak soak

all: kernel

help:
	@echo 'make demo             build, boot the guest, meter a workload, print the report'
	@echo 'make demo SCENARIO=list   the real kernel troubles (fifo munmap journal upgrade) to demo'
	@echo 'make check-scenarios  only the scenario boot of make check'
	@echo 'make check            host tests + guest KUnit and kselftests; "N passed, N failed"'
	@echo '                      then the wall time of each step (build/steps.tsv)'
	@echo 'make readme-timings   the README timing table from scripts/timings/{cold,warm}.tsv'
	@echo 'make kernel           unpack/patch/configure/build the kernel (KSRC=your 6.12 tree)'
	@echo 'make install-kernel-tree KSRC=~/linux   copy files and apply patches only'
	@echo 'make patch            write build/lockmeter-6.12.patch (everything, one patch; KVER=6.1 too)'
	@echo 'make checkpatch       scripts/checkpatch.pl --strict on kernel files and patches'
	@echo "make check-lockdep    only the guest kernel's lockdep boots: kselftests lockmeter=on,"
	@echo '                      locktorture and the fuzzer, the parallel-vCPU boot'
	@echo 'make check-rt         only the PREEMPT_RT kernel boot: KUnit, locktorture, kselftests'
	@echo 'make check-distro     only the distro-sized kernel (x86_64_defconfig): build, boot, kselftests,'
	@echo '                      and its scale boot'
	@echo 'make check-scale      only the scale boot: the distro-sized kernel on 8 vCPUs under stress-ng'
	@echo 'make deb              build/deb: linux-image/-headers from KCONFIG + lockmeter, lockstat'
	@echo '                      (KCONFIG=/boot/config-$$(uname -r) when it exists)'
	@echo 'make deb-config       only the config of make deb: build/obj-deb/.config, to edit'
	@echo 'make deb-check        only the package tests of make check, and the packaged kernel boot'
	@echo 'make bench            baseline vs lockmeter off/on vs LOCK_STAT kernels, ratios'
	@echo 'make bench-quick      the lockmeter kernel alone, instructions per op (icount)'
	@echo 'make bench-held       lockstat held with 0, 5000, 20000 threads alive (icount)'
	@echo 'make shell            boot the guest with an interactive shell'
	@echo 'make boot-check KVER=6.1   the 6.1 line (Debian 12): its kernel, KUnit and kselftests'
	@echo '                      (build/check-6.1.log); check-lockdep, check-scenarios too'
	@echo 'make keyflip          the "Oops: int3" of multi-threaded TCG on a kernel without lockmeter'
	@echo 'make soak             SOAK_MIN minutes (30) of the guest kernel on 4 vCPUs under stress-ng,'
	@echo '                      lockstat, on/off/reset/resize, module reload and CPU hotplug at once'
	@echo 'variables: SMP=2 TIMEOUT=1200 CMDLINE="lockmeter=on" V=1 KSRC=... KOBJ=...'
	@echo '           DISTRO=force (make check: the distro-sized kernel whatever build/distro.pass says)'
	@echo '           KCONFIG=... KOBJ_DEB=... (make deb)'
	@echo '           WIDE_SMP=8 (make bench: guest CPUs of the machine-size check)'
	@echo '           SCALE_SMP=8 SCALE_MEM=1024 (the scale boot: guest CPUs, MiB)'
	@echo '           SOAK_MIN=30 SOAK_SMP=4 SOAK_MEM=1024 SOAK_MARGIN=900 (make soak: minutes,'
	@echo '           guest CPUs, MiB, seconds the guest may take beyond SOAK_MIN)'

deps:
	$(Q)scripts/deps.sh

tree install-kernel-tree: deps
	$(Q)scripts/prepare-tree.sh $(KSRC) $(KVER)

kernel: tree
	$(Q)$(STEP) 'kernel: guest (build/obj$(L))' \
		scripts/build-kernel.sh $(KSRC) $(KOBJ) $(MODROOT) $(FRAGMENTS)

# Its own objects, from the same tree; no kselftests build against it.
kernel-demo: tree
	$(Q)HEADERS=0 scripts/build-kernel.sh $(KSRC) $(KOBJ_DEMO) $(MODROOT_DEMO) $(FRAGS_DEMO)

kernel-rt: tree kernel
	$(Q)HEADERS=0 $(STEP) 'kernel: PREEMPT_RT (build/obj-rt)' \
		scripts/build-kernel.sh $(KSRC) $(KOBJ_RT) $(MODROOT_RT) $(FRAGS_RT)

# After "kernel" too: x86_64_defconfig, not tinyconfig, under the fragment.
kernel-distro: tree kernel
	$(Q)KBASE=x86_64_defconfig HEADERS=0 $(STEP) 'kernel: distro-sized (build/obj-distro)' \
		scripts/build-kernel.sh $(KSRC) $(KOBJ_DI) $(MODROOT_DI) $(FRAGS_DI)

selftests: kernel
	@echo '  KSFT    lockmeter -> $(KSFT_DIR)'
	$(Q)rm -rf $(KSFT_DIR)
	$(Q)$(MAKE) -s -C $(KSRC)/tools/testing/selftests TARGETS=lockmeter \
		O=$(KOBJ) KSFT_INSTALL_PATH=$(KSFT_DIR) install >$(BUILD)/kselftest-build$(L).log 2>&1 || \
		{ cat $(BUILD)/kselftest-build$(L).log; echo 'selftests: build failed'; exit 1; }

# The guest has no libc: lockstat is linked statically for it.
lockstat: deps
	@echo '  LOCKSTAT $(LOCKSTAT) (static)'
	$(Q)$(MAKE) -s -C tools/lockstat O=$(BUILD)/lockstat STATIC=1 >$(BUILD)/lockstat-build.log 2>&1 || \
		{ cat $(BUILD)/lockstat-build.log; echo 'lockstat: build failed'; exit 1; }

# The scenarios' workloads (scripts/scenarios/lmscenario.c), static too.
scenarios:
	@echo '  CC      $(LMSCENARIO) (static)'
	$(Q)mkdir -p $(dir $(LMSCENARIO))
	$(Q)gcc -static -O2 -Wall -Wextra -Werror -pthread -o $(LMSCENARIO) \
		scripts/scenarios/lmscenario.c

initramfs: selftests lockstat scenarios
	@echo '  CPIO    $(INITRD)'
	$(Q)scripts/mkinitramfs.sh $(INITRD) $(BUILD)/initramfs$(L) $(MODROOT) $(KSFT_DIR) $(LOCKSTAT) \
		$(LMSCENARIO)

# The demo's user space: lockstat and the scenarios, no kselftests.
initramfs-demo: lockstat scenarios kernel-demo
	@echo '  CPIO    $(INITRD_DEMO)'
	$(Q)scripts/mkinitramfs.sh $(INITRD_DEMO) $(BUILD)/initramfs-demo$(L) $(MODROOT_DEMO) \
		none $(LOCKSTAT) $(LMSCENARIO)

initramfs-rt: selftests lockstat kernel-rt
	@echo '  CPIO    $(INITRD_RT)'
	$(Q)scripts/mkinitramfs.sh $(INITRD_RT) $(BUILD)/initramfs-rt $(MODROOT_RT) \
		$(KSFT_DIR) $(LOCKSTAT)

# With Debian's stress-ng, for the scale boot: dynamic, mkinitramfs.sh
# packs the libraries ldd lists with it.
initramfs-distro: selftests lockstat kernel-distro
	@echo '  CPIO    $(INITRD_DI)'
	$(Q)scripts/mkinitramfs.sh $(INITRD_DI) $(BUILD)/initramfs-distro $(MODROOT_DI) \
		$(KSFT_DIR) $(LOCKSTAT) $(STRESS_NG)

# make check's distro-sized kernel: built only when its sources changed
# since its last passing run (asked when make check is read, so that the
# answer can name a prerequisite); build/distro.key says it is to boot.
ifneq ($(filter check-distro,$(MAKECMDGOALS)),)
DISTRO     := force
endif
ifneq ($(filter guest-check check-distro,$(MAKECMDGOALS)),)
DISTRO_STEP := $(shell DISTRO=$(DISTRO) scripts/distro-check.sh need $(BUILD) >&2 && \
		 echo initramfs-distro)
endif

host-check: deps
	@echo '  HOST    scripts/tests (results in $(BUILD)/host.tap)'
	$(Q)mkdir -p $(BUILD)
	$(Q)$(STEP) 'host: scripts/tests' scripts/tests/run.py $(BUILD)/host.tap
	@echo '  HOST    tools/lockstat check (results in $(BUILD)/lockstat.tap)'
	$(Q)$(STEP) 'host: lockstat suite' $(MAKE) -s -C tools/lockstat O=$(BUILD)/lockstat-host check \
		TAP_OUT=$(BUILD)/lockstat.tap >$(BUILD)/lockstat-check.log 2>&1 || \
		{ grep -v '^ok' $(BUILD)/lockstat-check.log; echo 'lockstat: host tests failed'; exit 1; }
	@echo '  HOST    tools/lockstat fuzz-check (results in $(BUILD)/fuzz.tap)'
	$(Q)$(STEP) 'host: lockstat fuzzing' $(MAKE) -s -C tools/lockstat O=$(BUILD)/lockstat-host \
		fuzz-check FUZZ_TAP_OUT=$(BUILD)/fuzz.tap >$(BUILD)/fuzz-check.log 2>&1 || \
		{ grep -v '^ok' $(BUILD)/fuzz-check.log | head -n 60; echo 'lockstat: fuzzing failed'; exit 1; }

# The boots of make check, each a target of its own (boot-NAME) and a log
# in build/ judged by guest-verdict.py (the guest's test channel; its
# kernel console is NAME.console.log beside it):
#   check.log            guest kernel, metering switched on by the tests
#   check-scenarios.log  guest kernel: the scenario tests (fifo, munmap,
#                        journal on a throttled virtio disk)
#   check-lockdep.log    guest kernel, lockmeter=on from boot: the same
#                        kselftests
#   torture-lockdep.log  guest kernel: locktorture per lock type while
#                        metering flips, resets and dumps and CPU 1 goes
#                        off and on line, then the netlink/proc fuzzer
#   parallel-lockdep.log guest kernel under multi-threaded TCG
#   torture-rt.log       PREEMPT_RT kernel (lockdep too)
#   check-deb.log        the packaged kernel of make deb (the guest's config)
#   check-distro.log     the distro-sized kernel (no lockdep), lockmeter=on
#                        from boot, and scale-distro.log its scale boot
# All but the distro-sized kernel's boots run under lockdep.
BOOT_LOG     := $(BUILD)/check$(L).log
BOOT_LOG_SCN := $(BUILD)/check-scenarios$(L).log
BOOT_LOGS    := $(BOOT_LOG) $(BOOT_LOG_SCN)
BOOT_LOG_LD  := $(BUILD)/check-lockdep$(L).log
BOOT_LOG_TO  := $(BUILD)/torture-lockdep$(L).log
BOOT_LOG_PAR := $(BUILD)/parallel-lockdep$(L).log
BOOT_LOGS_LD := $(BOOT_LOG_LD) $(BOOT_LOG_TO) $(BOOT_LOG_PAR)
# The parallel boot: PAR_SMP vCPUs under multi-threaded TCG, each a host
# thread, so lock paths, snapshots and resets truly run at once.  QEMU's
# multi-threaded TCG cannot be trusted with run-time text patching (a
# static key flip ends in "Oops: int3" on vanilla 6.12 as well:
# scripts/keyflip/), so it meters with lockmeter=pinned and has the lock
# trace events on from boot: nothing in it flips a static key.
PAR_SMP    ?= 2
# It boots on one CPU (maxcpus=1) and /init brings the others online
# (lmonline=all): the keys the kernel itself switches late in boot
# (sched_clock_stable, the IPI shorthand) are flipped with no other CPU
# running.
PAR_EVENTS := trace_event=lock:contention_begin,lock:contention_end maxcpus=1 lmonline=all

BOOTS := boot-check boot-scenarios boot-upgrade boot-lockdep boot-torture boot-parallel \
	 boot-rt boot-deb boot-distro boot-scale
.PHONY: $(BOOTS)

boot-check: initramfs
	@echo '  QEMU    check: -smp $(SMP), log in $(BOOT_LOG) (timeout $(TIMEOUT)s)'
	-$(Q)$(STEP) 'boot: guest kernel, kselftests$(LSTEP)' scripts/run-guest.sh $(BZIMAGE) \
		$(INITRD) $(BOOT_LOG) $(TIMEOUT) check $(CMDLINE)

# The journal scenario's disk: a fresh ext4 image for every boot.
boot-scenarios: initramfs
	@echo '  QEMU    scenarios (fifo munmap journal): log in $(BOOT_LOG_SCN)'
	-$(Q)scripts/scenarios/mkdisk.sh $(JOURNAL_IMG) && \
	DISK=$(JOURNAL_IMG) DISK_BPS=$(JOURNAL_BPS) $(STEP) 'boot: guest kernel, scenarios$(LSTEP)' \
		scripts/run-guest.sh $(BZIMAGE) $(INITRD) $(BOOT_LOG_SCN) $(TIMEOUT) \
		scenarios $(CMDLINE)

# This line's half of the upgrade hunt (the host's check-upgrade diffs
# the two lines' halves).
boot-upgrade: initramfs
	@echo '  QEMU    upgrade hunt, munmap workload: log in $(BOOT_LOG_UP)'
	-$(Q)$(STEP) 'boot: guest kernel, the upgrade hunt$(LSTEP)' scripts/run-guest.sh $(BZIMAGE) \
		$(INITRD) $(BOOT_LOG_UP) $(TIMEOUT) upgrade $(UPGRADE_ARGS) $(CMDLINE)

boot-lockdep: initramfs
	@echo '  QEMU    check, lockmeter=on from boot: log in $(BOOT_LOG_LD)'
	-$(Q)$(STEP) 'boot: guest kernel, lockmeter=on$(LSTEP)' scripts/run-guest.sh $(BZIMAGE) \
		$(INITRD) $(BOOT_LOG_LD) $(TIMEOUT) check lockmeter=on $(CMDLINE)

# Every lock type locktorture has (scripts/guest/torture.sh's list), but
# where a line's locktorture has fewer: 6.1's has no raw_spin_lock types.
TORTURE_6.1 := spin_lock,spin_lock_irq,rw_lock,rw_lock_irq,mutex_lock,rwsem_lock,ww_mutex_lock,rtmutex_lock,percpu_rwsem_lock
boot-torture: initramfs
	@echo '  QEMU    torture: log in $(BOOT_LOG_TO)'
	-$(Q)$(STEP) 'boot: guest kernel, locktorture$(LSTEP)' scripts/run-guest.sh $(BZIMAGE) \
		$(INITRD) $(BOOT_LOG_TO) $(TIMEOUT) torture lockmeter=on \
		$(if $(TORTURE_$(KVER)),lmtorture=$(TORTURE_$(KVER))) lmtests=lockmeter:nl_fuzz $(CMDLINE)

boot-parallel: initramfs
	@echo '  QEMU    parallel: guest kernel, -smp $(PAR_SMP) under multi-threaded TCG,' \
		'lockmeter=pinned: log in $(BOOT_LOG_PAR)'
	-$(Q)TCG_THREAD=multi SMP=$(PAR_SMP) $(STEP) 'boot: guest kernel, parallel vCPUs$(LSTEP)' \
		scripts/run-guest.sh $(BZIMAGE) $(INITRD) $(BOOT_LOG_PAR) \
		$(TIMEOUT) torture lockmeter=pinned $(PAR_EVENTS) \
		$(if $(TORTURE_$(KVER)),lmtorture=$(TORTURE_$(KVER))) $(CMDLINE)

boot-rt: initramfs-rt
	@echo '  QEMU    torture, PREEMPT_RT kernel, lockmeter=on: log in $(BOOT_LOG_RT)'
	-$(Q)$(STEP) 'boot: PREEMPT_RT kernel' scripts/run-guest.sh $(BZIMAGE_RT) $(INITRD_RT) \
		$(BOOT_LOG_RT) $(TIMEOUT) torture lockmeter=on lmtorture=$(RT_TORTURE) \
		lmtests=$(RT_TESTS) $(CMDLINE)

# The distro-sized kernel, lockmeter=on from boot: the kselftests; only
# when build/distro.key says it is to boot.
DISTRO_TAP := $(BUILD)/distro-build.tap
boot-distro: $(DISTRO_STEP)
	-$(Q)if [ -f $(BUILD)/distro.key ]; then \
		scripts/distro-check.sh tap $(BUILD) $(KOBJ_DI) $(DISTRO_TAP); \
		echo '  QEMU    check, distro-sized kernel, lockmeter=on: log in $(BOOT_LOG_DI)'; \
		$(STEP) 'boot: distro-sized kernel, kselftests' scripts/run-guest.sh $(BZIMAGE_DI) \
			$(INITRD_DI) $(BOOT_LOG_DI) $(TIMEOUT) check lockmeter=on $(CMDLINE); \
	else \
		rm -f $(BOOT_LOG_DI); \
	fi

# The scale boot of the distro-sized kernel, under the same rule as
# boot-distro.  A fixed amount of work per stressor (scripts/guest/scale.sh),
# then the checks that the tables held it: no table_full, dropped or
# evicted, under 1% of the acquisitions in overflow rows.
define boot_scale_run
	echo '  QEMU    scale, distro-sized kernel, -smp $(SCALE_SMP), lockmeter=on, stress-ng:' \
		'log in $(BOOT_LOG_SC)'; \
	SMP=$(SCALE_SMP) MEM=$(SCALE_MEM) $(STEP) 'boot: distro-sized kernel, scale' \
		scripts/run-guest.sh $(BZIMAGE_DI) $(INITRD_DI) $(BOOT_LOG_SC) $(TIMEOUT) scale \
		lockmeter=on $(CMDLINE)
endef
boot-scale: $(DISTRO_STEP)
	-$(Q)if [ -f $(BUILD)/distro.key ]; then \
		$(boot_scale_run); \
	else \
		rm -f $(BOOT_LOG_SC); \
	fi
SCALE_LOG = $$([ -f $(BUILD)/distro.key ] && echo $(BOOT_LOG_SC))
DISTRO_TAPS = $$([ -f $(BUILD)/distro.key ] && echo --tap $(DISTRO_TAP))
DISTRO_LOG = $$([ -f $(BUILD)/distro.key ] && echo $(BOOT_LOG_DI))

# The other line's kernel and its two boots (LINE2, above), through make
# KVER=$(LINE2), outside the lanes (LANES=): its tree, objects, initramfs
# and logs are its own.
.PHONY: kernel-line2 boot-check-line2 boot-torture-line2 boot-upgrade-line2 check-upgrade
kernel-line2:
	$(Q)$(MAKE) --no-print-directory KVER=$(LINE2) LANES= initramfs
boot-check-line2: kernel-line2
	-$(Q)$(MAKE) --no-print-directory KVER=$(LINE2) LANES= -o initramfs boot-check
boot-torture-line2: kernel-line2
	-$(Q)$(MAKE) --no-print-directory KVER=$(LINE2) LANES= -o initramfs boot-torture
boot-upgrade-line2: kernel-line2
	-$(Q)$(MAKE) --no-print-directory KVER=$(LINE2) LANES= -o initramfs boot-upgrade

# The upgrade hunt's diff and its checks, from both lines' boots.
check-upgrade: boot-upgrade boot-upgrade-line2
	@echo '  HOST    the upgrade hunt: lockstat diff of $(LINE2) and $(KVER) (results in $(UPGRADE_TAP))'
	-$(Q)$(STEP) 'host: the upgrade hunt, $(LINE2) against $(KVER)' scripts/scenarios/upgrade.sh \
		check $(LOCKSTAT) $(UPGRADE_LOGS) $(BUILD)/upgrade $(UPGRADE_TAP) > /dev/null

# Builds no guest boots, as far as the objects lockmeter touches, with no
# warnings (a TAP result each): arm64 with lockmeter, cross-compiled, and
# x86_64 without it (the hooks must compile away).
check-compile: tree
	$(Q)$(STEP) 'compile: arm64 (build/obj-arm64)' \
		scripts/check-compile.sh arm64 $(KSRC) $(BUILD)/obj-arm64 $(BUILD)/arm64.tap
	$(Q)$(STEP) 'compile: x86_64 without lockmeter (build/obj-off)' \
		scripts/check-compile.sh off $(KSRC) $(BUILD)/obj-off $(BUILD)/off.tap

# Everything make check runs, and the verdict; a failed boot is judged
# from its log with the others (the boots' recipes go on after a failure).
guest-check: host-check check-compile deb-test $(BOOTS) boot-check-line2 boot-torture-line2 \
		check-upgrade
	$(Q)scripts/guest-verdict.py --mode check --cpus $(SMP) --tap $(BUILD)/host.tap \
		--tap $(BUILD)/lockstat.tap --tap $(BUILD)/fuzz.tap --tap $(BUILD)/arm64.tap \
		--tap $(BUILD)/off.tap $(DEB_TAPS) $(DISTRO_TAPS) --tap $(UPGRADE_TAP) $(BOOT_LOGS) \
		$(BOOT_LOGS_LD) $(BOOT_LOG_RT) $(BOOT_LOG_DEB) $(BOOT_LOGS_2) $(UPGRADE_LOGS) \
		$(DISTRO_LOG) $(SCALE_LOG) && \
	scripts/distro-check.sh passed $(BUILD)

# make check: guest-check in two lanes side by side (make -j2, LANES=1).
# One lane builds the kernels one after the other, each with all the
# host's CPUs; the other runs the host tests and then the boots, one at a
# time, each as soon as its kernel is built: a boot is one QEMU thread
# (single-threaded TCG), a build keeps two CPUs busy but for its links.
# The PREEMPT_RT kernel's boot and the distro-sized kernel's two may run
# beside another boot: once the last kernel is built, a CPU would be idle.
# No test depends on the host's speed, so the boots may share the CPUs
# with a build.  The steps' table comes last (scripts/steps.sh).
ifeq ($(LANES),1)
# The build lane: the guest kernel, then its package (from the ccache
# the guest kernel filled), then PREEMPT_RT, then the other line's guest
# kernel, then the distro-sized one, the dearest, whose two boots end make
# check side by side.
deb-guest: | kernel
kernel-rt: | deb-guest
kernel-line2: | kernel-rt
$(if $(DISTRO_STEP),kernel-distro: | kernel-line2)
# The host tests, the compile checks, the lockstat package and the boots,
# in the order their kernels are built.
check-compile: | host-check
deb-lockstat-check: | check-compile
boot-check: | deb-lockstat-check
boot-scenarios: | boot-check
boot-upgrade: | boot-scenarios
boot-lockdep: | boot-upgrade
boot-torture: | boot-lockdep
boot-parallel: | boot-torture
deb-test: | boot-parallel
boot-deb: | deb-test
boot-check-line2: | boot-deb
boot-torture-line2: | boot-check-line2
boot-upgrade-line2: | boot-torture-line2
boot-distro: | boot-upgrade-line2
boot-scale: | boot-upgrade-line2
endif

check:
	$(Q)mkdir -p $(BUILD) && rm -f $(STEPS) && \
	start=$$(date +%s); \
	LM_STEPS=$(STEPS) $(MAKE) --no-print-directory -j2 LANES=1 guest-check; rc=$$?; \
	printf 'all of make check\t%s\t%s\t%s\n' $$start $$(date +%s) $$rc >> $(STEPS); \
	echo '  STEPS   make check, wall time per step ($(STEPS)):'; \
	scripts/steps.sh table $(STEPS); \
	exit $$rc

# The reproducer of "Oops: int3" under multi-threaded TCG without
# lockmeter: make bench's baseline kernel (the same tree, no lockmeter)
# and scripts/keyflip/keyflip.ko, a static key of its own flipped under
# the other vCPU's feet; multi-threaded TCG, then single-threaded.
KOBJ_BASE := $(BUILD)/bench/baseline/obj
keyflip: tree
	$(Q)scripts/build-kernel.sh $(KSRC) $(KOBJ_BASE) $(BUILD)/bench/baseline/modroot \
		config/qemu-6.12.config config/scenarios.config config/bench-baseline.config
	@echo '  QEMU    keyflip, multi-threaded TCG: log in $(BUILD)/keyflip/keyflip-module-multi.log'
	$(Q)if scripts/keyflip/run.sh $(KOBJ_BASE) $(BUILD)/keyflip multi module 2000; then \
		echo 'keyflip: no oops under multi-threaded TCG this time'; \
	else echo 'keyflip: multi-threaded TCG: the oops above'; fi
	@echo '  QEMU    keyflip, single-threaded TCG: log in $(BUILD)/keyflip/keyflip-module-single.log'
	$(Q)scripts/keyflip/run.sh $(KOBJ_BASE) $(BUILD)/keyflip single module 500 && \
		echo 'keyflip: single-threaded TCG: 500 flips, no oops'

# The packages: make deb from the guest's config (it is the guest kernel's
# .config, LOCKMETER and the test module in it), the lockstat package
# without its test suite (host-check runs it), and their tests; then the
# packaged kernel boots with its own modules and runs the kselftests.
BOOT_LOG_DEB := $(BUILD)/check-deb$(L).log
DEB_TAPS     := --tap $(BUILD)/deb$(L).tap --tap $(BUILD)/deb-boot$(L).tap

boot-deb: deb-test
	@echo '  QEMU    check, the kernel of $(notdir $(DEB_GUEST))/linux-image: log in $(BOOT_LOG_DEB)'
	-$(Q)$(STEP) 'boot: the packaged kernel$(LSTEP)' scripts/run-guest.sh $(DEB_BOOT)/vmlinuz \
		$(DEB_BOOT)/initramfs.cpio.gz $(BOOT_LOG_DEB) $(TIMEOUT) check $(CMDLINE); \
	KVER=$(KVER) scripts/deb-test.sh booted $(BUILD) $(BOOT_LOG_DEB) $(BUILD)/deb-boot$(L).tap

deb-kernel: tree
	$(Q)scripts/deb-kernel.sh $(KSRC) $(KOBJ_DEB) $(DEB) '$(KCONFIG)'

deb-lockstat: deps
	$(Q)scripts/deb-lockstat.sh $(DEB)

deb: deb-kernel deb-lockstat

# Only the config of make deb, build/obj-deb/.config, to read or edit
# before make deb (which keeps the edits).
deb-config: tree
	$(Q)DEB_CONFIG_ONLY=1 scripts/deb-kernel.sh $(KSRC) $(KOBJ_DEB) $(DEB) '$(KCONFIG)'

deb-guest: tree kernel
	$(Q)$(STEP) 'kernel: make deb of the guest config (build/obj-deb-guest$(L))' \
		scripts/deb-kernel.sh $(KSRC) $(KOBJ_DEBG) $(DEB_GUEST) $(KOBJ)/.config

# The lockstat package is built as make deb builds it, its test suite run
# on the way, from a staging directory elsewhere: the suite must not
# depend on where the tree lives.
deb-lockstat-check: deps
	$(Q)$(STEP) 'host: the lockstat package, its suite run' scripts/deb-lockstat.sh $(DEB)

deb-test: deb-guest selftests lockstat deb-lockstat-check
	$(Q)KVER=$(KVER) $(STEP) 'host: the packages tested$(LSTEP)' \
		scripts/deb-test.sh packages $(BUILD) $(KSRC) $(BUILD)/deb$(L).tap

deb-check: boot-deb
	$(Q)scripts/guest-verdict.py --mode check --cpus $(SMP) $(DEB_TAPS) $(BOOT_LOG_DEB)

# Only the PREEMPT_RT kernel's boot.
check-rt: boot-rt
	$(Q)scripts/guest-verdict.py --mode check --cpus $(SMP) $(BOOT_LOG_RT)

# Only the lockdep-kernel boots, for work on the safety tests.
check-lockdep: boot-lockdep boot-torture boot-parallel
	$(Q)scripts/guest-verdict.py --mode check --cpus $(SMP) $(BOOT_LOGS_LD)

# Only the distro-sized kernel of make check, built and booted whatever
# build/distro.pass says: its kselftests and its scale boot, both of
# which a passing run in build/distro.pass stands for.
check-distro: boot-distro boot-scale
	$(Q)scripts/guest-verdict.py --mode check --cpus $(SMP) --tap $(DISTRO_TAP) $(BOOT_LOG_DI) \
		$(BOOT_LOG_SC) && \
	scripts/distro-check.sh passed $(BUILD)

# Only the scale boot, whatever build/distro.pass says (and recording
# nothing there: the distro-sized kernel's kselftests did not run).
check-scale: initramfs-distro
	$(Q)$(boot_scale_run); \
	scripts/guest-verdict.py --mode check --cpus $(SCALE_SMP) $(BOOT_LOG_SC)

# make soak (not part of make check): the guest kernel (lockdep) on
# SOAK_SMP vCPUs under single-threaded TCG, as run-time static key flips
# need, for SOAK_MIN minutes of everything at once: Debian's stress-ng,
# the test module's holds and contention counted exactly, lockstat top,
# watch, held and record, on/off/reset and key directory resizes, the
# module unloaded and loaded, CPU hotplug (scripts/guest/soak.sh).  The
# guest must end within SOAK_MARGIN seconds of SOAK_MIN: boot, stopping
# the loops, the checks at the end.  Its initramfs is the guest's with
# stress-ng and its libraries, and no kselftests.
SOAK_MIN    ?= 30
SOAK_SMP    ?= 4
SOAK_MEM    ?= 1024
SOAK_MARGIN ?= 900
INITRD_SOAK := $(BUILD)/initramfs-soak$(L).cpio.gz
BOOT_LOG_SOAK := $(BUILD)/soak$(L).log

initramfs-soak: kernel lockstat
	@echo '  CPIO    $(INITRD_SOAK)'
	$(Q)scripts/mkinitramfs.sh $(INITRD_SOAK) $(BUILD)/initramfs-soak$(L) $(MODROOT) none \
		$(LOCKSTAT) $(STRESS_NG)

soak: initramfs-soak
	@echo '  QEMU    soak: $(SOAK_MIN) min, -smp $(SOAK_SMP), lockmeter=on, log in $(BOOT_LOG_SOAK)'
	$(Q)SMP=$(SOAK_SMP) MEM=$(SOAK_MEM) TCG_THREAD=single scripts/run-guest.sh $(BZIMAGE) \
		$(INITRD_SOAK) $(BOOT_LOG_SOAK) $$(($(SOAK_MIN) * 60 + $(SOAK_MARGIN))) soak \
		lockmeter=on lmsoak=$(SOAK_MIN) $(CMDLINE); \
	sed -n 's/^# summary: /  SOAK    /p' $(BOOT_LOG_SOAK); \
	scripts/guest-verdict.py --mode check --cpus $(SOAK_SMP) $(BOOT_LOG_SOAK)

# Only the scenario boot of make check, for work on the scenarios.
check-scenarios: boot-scenarios
	$(Q)scripts/guest-verdict.py --mode check --cpus $(SMP) $(BOOT_LOG_SCN)


ifeq ($(SCENARIO),)
demo: initramfs-demo
	@echo '  QEMU    demo: -smp $(SMP), log in $(BUILD)/demo$(L).log'
	$(Q)scripts/run-guest.sh $(BZIMAGE_DEMO) $(INITRD_DEMO) $(BUILD)/demo$(L).log $(TIMEOUT) demo $(CMDLINE); \
		sed -n '/^LM-GUEST: report begin/,/^LM-GUEST: report end/p' $(BUILD)/demo$(L).log | \
		sed '1d;$$d' | grep -v '^\[ *[0-9]*\.[0-9]*\] '; \
		scripts/guest-verdict.py --mode demo --cpus $(SMP) $(BUILD)/demo$(L).log
else ifeq ($(SCENARIO),list)
demo:
	@cat scripts/scenarios/list.txt
else ifeq ($(filter $(SCENARIO),$(SCENARIOS)),)
demo:
	@echo 'make demo: SCENARIO=$(SCENARIO) is not one of: $(SCENARIOS) (make demo SCENARIO=list)'
	@exit 2
else ifeq ($(SCENARIO),upgrade)
# The upgrade hunt: the munmap workload on the demo kernels of both lines
# (each line's own make demo kernel), a snapshot from each, and lockstat
# diff of 6.1's against 6.12's.
UPGRADE_DEMO_LOG = $(BUILD)/demo-upgrade-$(1).log
demo:
	$(Q)$(MAKE) --no-print-directory KVER=$(LINE2) initramfs-demo
	$(Q)$(MAKE) --no-print-directory KVER=6.12 initramfs-demo
	@echo '  QEMU    upgrade hunt on $(LINE2): -smp $(SMP), log in $(call UPGRADE_DEMO_LOG,$(LINE2))'
	$(Q)scripts/run-guest.sh $(BUILD)/obj-demo-$(LINE2)/arch/x86/boot/bzImage \
		$(BUILD)/initramfs-demo-$(LINE2).cpio.gz $(call UPGRADE_DEMO_LOG,$(LINE2)) $(TIMEOUT) \
		upgrade $(UPGRADE_ARGS) $(CMDLINE)
	@echo '  QEMU    upgrade hunt on 6.12: -smp $(SMP), log in $(call UPGRADE_DEMO_LOG,6.12)'
	$(Q)scripts/run-guest.sh $(BUILD)/obj-demo/arch/x86/boot/bzImage $(BUILD)/initramfs-demo.cpio.gz \
		$(call UPGRADE_DEMO_LOG,6.12) $(TIMEOUT) upgrade $(UPGRADE_ARGS) $(CMDLINE)
	$(Q)scripts/guest-verdict.py --mode demo --cpus $(SMP) $(call UPGRADE_DEMO_LOG,$(LINE2)) \
		$(call UPGRADE_DEMO_LOG,6.12) && \
	scripts/scenarios/upgrade.sh snap $(call UPGRADE_DEMO_LOG,$(LINE2)) $(BUILD)/demo-upgrade-$(LINE2).snap && \
	scripts/scenarios/upgrade.sh snap $(call UPGRADE_DEMO_LOG,6.12) $(BUILD)/demo-upgrade-6.12.snap && \
	echo "Linux $(LINE2) against 6.12, the same workload:" && \
	grep -h '^LM-SCENARIO:' $(call UPGRADE_DEMO_LOG,$(LINE2)) $(call UPGRADE_DEMO_LOG,6.12) && \
	echo "lockstat diff --type rwsem_read,rwsem_write --top 10 build/demo-upgrade-$(LINE2).snap build/demo-upgrade-6.12.snap:" && \
	scripts/scenarios/upgrade.sh show $(LOCKSTAT) $(BUILD)/demo-upgrade-$(LINE2).snap \
		$(BUILD)/demo-upgrade-6.12.snap
else
# A scenario: its report, the evidence of its top rows, what to look at.
# journal gets a fresh ext4 image as /dev/vda, throttled to JOURNAL_BPS.
demo: initramfs-demo
	@echo '  QEMU    scenario $(SCENARIO): -smp $(SMP), log in $(BUILD)/demo-$(SCENARIO)$(L).log'
	$(Q)$(if $(filter journal,$(SCENARIO)),scripts/scenarios/mkdisk.sh $(JOURNAL_IMG) && \
		DISK=$(JOURNAL_IMG) DISK_BPS=$(JOURNAL_BPS)) scripts/run-guest.sh $(BZIMAGE_DEMO) \
		$(INITRD_DEMO) $(BUILD)/demo-$(SCENARIO)$(L).log $(TIMEOUT) scenario \
		lmscenario=$(SCENARIO) $(CMDLINE); \
		sed -n '/^LM-GUEST: report begin/,/^LM-GUEST: report end/p' \
		$(BUILD)/demo-$(SCENARIO)$(L).log | sed '1d;$$d' | grep -v '^\[ *[0-9]*\.[0-9]*\] '; \
		scripts/guest-verdict.py --mode demo --cpus $(SMP) $(BUILD)/demo-$(SCENARIO)$(L).log
endif

# Three kernels from the same tree (baseline, lockmeter as Kconfig has it
# by default, LOCK_STAT), the same benchmarks in each, and the lockmeter
# kernel's module tests with WIDE_SMP CPUs: build/bench/report.txt.
bench: tree
	$(Q)KVER=$(KVER) SMP=$(SMP) WIDE_SMP=$(WIDE_SMP) TIMEOUT=$(TIMEOUT) scripts/bench.sh $(KSRC)

# The demo kernel (the guest's, without lockdep) alone under -icount:
# instructions per operation.
bench-quick: kernel-demo
	$(Q)KVER=$(KVER) SMP=$(SMP) TIMEOUT=$(TIMEOUT) scripts/bench-quick.sh $(KOBJ_DEMO) $(MODROOT_DEMO)

# The held scan (lockstat held, the kernel's walk of every thread under
# lm_ctl_mutex) on the demo kernel under -icount with 0, 5000 and 20000
# sleeping threads: instructions per lockstat held, and the walk's
# longest hold of lm_ctl_mutex.
bench-held: kernel-demo lockstat
	$(Q)KVER=$(KVER) LMBENCH=held MEM=1536 SMP=$(SMP) TIMEOUT=$(TIMEOUT) \
		scripts/bench-quick.sh $(KOBJ_DEMO) $(MODROOT_DEMO) $(LOCKSTAT)

shell: initramfs
	$(Q)scripts/run-guest.sh $(BZIMAGE) $(INITRD) /dev/null 0 shell $(CMDLINE)

# The README's timing table, from the steps of two make check runs kept
# in scripts/timings/ (cold.tsv: an empty ccache; warm.tsv: the next run).
readme-timings:
	$(Q)scripts/steps.sh readme scripts/timings/cold.tsv scripts/timings/warm.tsv README.md

patch:
	$(Q)mkdir -p $(BUILD) && scripts/mkpatch.sh $(KVER) > $(BUILD)/lockmeter-$(KVER).patch
	@echo '  PATCH   $(BUILD)/lockmeter-$(KVER).patch'

checkpatch: tree
	$(Q)scripts/checkpatch.sh $(KSRC)

clean:
	rm -rf $(BUILD)
