// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter and modules: rows of a module that was unloaded keep their
 * names and never merge with the rows of the same module loaded again at
 * the same addresses; a site in the module's init text, freed once it is
 * up, is named by the module.  Locks in objects of the
 * module's slab caches are named by cache and offset, and once the module
 * has destroyed its caches, by "[slab]" and the offset.
 */
#define _GNU_SOURCE
#include <fcntl.h>

#include "lockmeter_lib.h"

#define KPTR	"/proc/sys/kernel/kptr_restrict"
#define RELOADS	3
#define HOLD_N	3
#define SLAB_N	50

static int mod_unload(void)
{
	return syscall(SYS_delete_module, LM_MOD_NAME, O_NONBLOCK) ? -errno : 0;
}

FIXTURE(mod)
{
	struct lm_report rep;
	char kptr[8];
};

FIXTURE_SETUP(mod)
{
	char *text;

	lm_setup(_metadata);
	text = lm_read_file(KPTR);
	ASSERT_NE(NULL, text);
	snprintf(self->kptr, sizeof(self->kptr), "%.1s", text);
	free(text);
}

FIXTURE_TEARDOWN(mod)
{
	EXPECT_EQ(0, lm_write(KPTR, self->kptr, strlen(self->kptr)));
	EXPECT_EQ(0, lm_ctl("off"));
	lm_report_free(&self->rep);
	/* leave the module loaded for the other tests */
	EXPECT_TRUE(lm_mod_ready(_metadata));
}

/*
 * The site of lmt_init_lock's row, as the report names it now: the row
 * of the spinlock_t itself (on PREEMPT_RT the raw spinlock inside it,
 * its rtmutex's wait_lock, has rows of its own at the rtmutex's sites).
 */
static void init_site(struct __test_metadata *_metadata, struct lm_report *rep,
		      char *site, size_t len)
{
	const struct lm_row *row = NULL;
	size_t i;

	lm_report_free(rep);
	lm_report_read(_metadata, rep);
	for (i = 0; i < rep->nr_rows; i++)
		if (!strcmp(rep->rows[i].type, lm_type("spin")) &&
		    lm_lock_named(rep->rows[i].lock, "lmt_init_lock"))
			row = &rep->rows[i];
	ASSERT_NE(NULL, row) TH_LOG("no row for the lock taken in module init");
	snprintf(site, len, "%s", row->site);
}

/*
 * Loading the module takes lmt_init_lock in __init code, freed once the
 * module is up, when kallsyms forgets its symbols: the site is named
 * "[init]+0xoff[test_lockmeter]", the offset in the module's init text,
 * whatever kptr_restrict says (no address is printed).
 */
TEST_F(mod, init_site_named_by_module)
{
	char zero[64], raw[64], hashed[64];

	ASSERT_EQ(0, mod_unload());
	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	ASSERT_TRUE(lm_mod_ready(_metadata));
	ASSERT_EQ(0, lm_ctl("off"));

	ASSERT_EQ(0, lm_write(KPTR, "2", 1));
	init_site(_metadata, &self->rep, zero, sizeof(zero));
	ASSERT_EQ(0, lm_write(KPTR, "1", 1));
	init_site(_metadata, &self->rep, raw, sizeof(raw));
	ASSERT_EQ(0, lm_write(KPTR, "0", 1));
	init_site(_metadata, &self->rep, hashed, sizeof(hashed));
	TH_LOG("kptr_restrict 2: %s, 1: %s, 0: %s", zero, raw, hashed);

	EXPECT_EQ(0, strncmp(raw, "[init]+0x", 9)) TH_LOG("site %s", raw);
	EXPECT_TRUE(lm_ends_with(raw, LM_MOD_SUFFIX)) TH_LOG("site %s", raw);
	EXPECT_STREQ(raw, zero);
	EXPECT_STREQ(raw, hashed);
}

/*
 * Meter, unload and load again, RELOADS times: each load's holds stay in
 * rows of their own, named as when the module was there, never filed as
 * heap locks.
 */
TEST_F(mod, reload_keeps_rows_apart)
{
	const struct lm_row *row;
	size_t i, rows = 0, heap = 0;
	unsigned int r;

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	for (r = 0; r < RELOADS; r++) {
		lm_mod_cmd(_metadata, "hold %u 100", HOLD_N + r);
		ASSERT_EQ(0, mod_unload());
		ASSERT_TRUE(lm_mod_ready(_metadata));
	}
	ASSERT_EQ(0, lm_ctl("off"));

	lm_report_read(_metadata, &self->rep);
	for (i = 0; i < self->rep.nr_rows; i++) {
		row = &self->rep.rows[i];
		if (!lm_site_in(row->site, "lmt_hold"))
			continue;
		if (!strcmp(row->lock, "[heap]")) {
			heap++;
			continue;
		}
		if (!lm_lock_is(row->lock, "lmt_static_lock"))
			continue;
		EXPECT_TRUE(lm_ends_with(row->lock, LM_MOD_SUFFIX)) TH_LOG("lock %s", row->lock);
		EXPECT_NE(NULL, strstr(row->site, LM_MOD_SUFFIX)) TH_LOG("site %s", row->site);
		/* HOLD_N, HOLD_N + 1, ...: one row per load */
		EXPECT_LE((uint64_t)HOLD_N, row->acquired);
		EXPECT_GT((uint64_t)HOLD_N + RELOADS, row->acquired)
			TH_LOG("%" PRIu64 " acquisitions: rows of two loads merged", row->acquired);
		rows++;
	}
	EXPECT_EQ((size_t)RELOADS, rows) TH_LOG("%zu rows for %u loads", rows, RELOADS);
	EXPECT_EQ(0U, heap) TH_LOG("module locks filed as heap locks");
}

/* The spin rows of @lock taken in lmt_slab_take(): how many, the last in *@row. */
static size_t slab_rows(const struct lm_report *rep, const char *lock,
			const struct lm_row **row)
{
	size_t i, n = 0;

	for (i = 0; i < rep->nr_rows; i++) {
		if (strcmp(rep->rows[i].type, lm_type("spin")) || strcmp(rep->rows[i].lock, lock) ||
		    !lm_site_in(rep->rows[i].site, "lmt_slab_take"))
			continue;
		*row = &rep->rows[i];
		n++;
	}
	return n;
}

/*
 * "slab N" locks objects of the caches lmtest_a and lmtest_b: one row
 * each, "lmtest_a+0xOFF" at the offset the module reports, with every
 * acquisition and as many instances as objects (the module picks objects
 * the kernel's instance set tells apart).  Unloaded, the module has
 * destroyed its caches: the rows say "[slab]+0xOFF".
 */
TEST_F(mod, slab_locks_named_by_cache)
{
	const struct lm_row *row = NULL;
	uint64_t objs, off[2];
	char lock[2][64];
	unsigned int c;

	lm_metered(_metadata, "slab %u", SLAB_N);
	objs = lm_mod_value(_metadata, "slab_objs");
	off[0] = lm_mod_value(_metadata, "slab_off_a");
	off[1] = lm_mod_value(_metadata, "slab_off_b");
	ASSERT_EQ(2 * SLAB_N * objs, lm_mod_value(_metadata, "count"));
	ASSERT_NE(off[0], off[1]);

	lm_report_read(_metadata, &self->rep);
	for (c = 0; c < 2; c++) {
		snprintf(lock[c], sizeof(lock[c]), "lmtest_%c+0x%" PRIx64, 'a' + c, off[c]);
		ASSERT_EQ(1U, slab_rows(&self->rep, lock[c], &row))
			TH_LOG("no single row for %s", lock[c]);
		ksft_print_msg("%s %s: acquired %" PRIu64 ", %" PRIu64 " instances\n",
			       row->lock, row->site, row->acquired, row->instances);
		EXPECT_EQ(SLAB_N * objs, row->acquired);
		EXPECT_EQ(objs, row->instances);
	}
	EXPECT_EQ(0U, slab_rows(&self->rep, "[heap]", &row))
		TH_LOG("slab locks filed as heap locks");

	ASSERT_EQ(0, mod_unload());
	lm_report_free(&self->rep);
	lm_report_read(_metadata, &self->rep);
	for (c = 0; c < 2; c++) {
		snprintf(lock[c], sizeof(lock[c]), "[slab]+0x%" PRIx64, off[c]);
		EXPECT_EQ(1U, slab_rows(&self->rep, lock[c], &row))
			TH_LOG("no single row for %s after the unload", lock[c]);
	}
}

TEST_HARNESS_MAIN
