// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: names of locks and call sites, for readers.
 *
 * Nothing is resolved on the lock path; a reader names the rows of its
 * snapshot here.  Static locks and sites go through kallsyms.  A static
 * per-CPU lock is keyed by its per-CPU offset, which kallsyms_lookup()
 * does not know, so lm_names_init() finds the nearest per-CPU symbol for
 * all such rows in one pass over the symbol table.  Rows of modules that
 * have gone carry the names they had then (lm_snapshot() copies them).
 *
 * An address in a module's init text, freed once the module is up, is
 * named "[init]+0xoff[module]" (lm_init_text_name()).  Any other address
 * kallsyms cannot name (the kernel's freed __init code, say) is printed
 * as it is only to a reader that may see kernel addresses (the caller
 * decides, by kallsyms_show_value() of the reader's credentials), hashed
 * (%p) to any other: not %pK, which judges whoever runs the printing, and
 * an alert is named in a kworker, with the kernel's credentials.
 *
 * A lock in a slab object is keyed by its struct kmem_cache and offset,
 * and named "cache+0xoff".  A cache may have been destroyed since (its
 * module unloaded): its name is read only while the cache is found on
 * slab_caches under slab_mutex, so that a row of a destroyed cache is
 * named "[slab]+0xoff" instead of from freed memory.
 */
#include <kunit/visibility.h>
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/sections.h>

#include "../../mm/slab.h"
#include "lockmeter.h"

struct lm_slab_name {
	unsigned long cache;
	char name[LM_SLAB_NAME_LEN];	/* "" while not found */
};

struct lm_pcpu_name {
	unsigned long lock;
	unsigned long sym;
	char name[KSYM_NAME_LEN];
};

static int lm_pcpu_sym(void *data, const char *name, unsigned long addr)
{
	struct lm_names *n = data;
	unsigned int i;

	if (addr < (unsigned long)__per_cpu_start || addr >= (unsigned long)__per_cpu_end)
		return 0;
	for (i = 0; i < n->nr_pcpu; i++) {
		struct lm_pcpu_name *e = &n->pcpu[i];

		if (addr <= e->lock && (!e->name[0] || addr >= e->sym)) {
			e->sym = addr;
			strscpy(e->name, name, sizeof(e->name));
		}
	}
	return 0;
}

/* The struct kmem_cache of @k if it is a live slab row's (or names one). */
static unsigned long lm_slab_key_cache(const struct lm_key *k)
{
	u32 class = k->class;

	if (lm_class(class) == LM_OVERFLOW)
		class = lm_ovf_class(class);
	if (lm_class(class) != LM_SLAB || (class & LM_GONE_LOCK))
		return 0;
	return k->lock;
}

/* Is @cache a cache that exists?  With slab_mutex held. */
bool lm_slab_live(unsigned long cache)
{
	struct kmem_cache *s;

	lockdep_assert_held(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		if ((unsigned long)s == cache)
			return true;
	return false;
}

void lm_slab_lock(void)
{
	mutex_lock(&slab_mutex);
}

void lm_slab_unlock(void)
{
	mutex_unlock(&slab_mutex);
}

/* Copy the name of @cache into @buf ("" if it is no cache now); may sleep. */
static void lm_slab_lookup(unsigned long cache, char *buf, size_t len)
{
	struct kmem_cache *s;

	buf[0] = '\0';
	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		if ((unsigned long)s == cache) {
			strscpy(buf, s->name, len);
			break;
		}
	}
	mutex_unlock(&slab_mutex);
}

/* The names of the caches of the slab rows of @snap, in one pass. */
static void lm_names_slab_init(struct lm_names *n, const struct lm_snapshot *snap)
{
	unsigned int j, count = 0;
	struct kmem_cache *s;
	unsigned long cache;
	size_t i;

	for (i = 0; i < snap->nr; i++)
		count += !!lm_slab_key_cache(&snap->rows[i].key);
	if (!count)
		return;
	n->slab = vzalloc(array_size(count, sizeof(*n->slab)));
	if (!n->slab)
		return;
	for (i = 0; i < snap->nr; i++) {
		cache = lm_slab_key_cache(&snap->rows[i].key);
		if (!cache)
			continue;
		for (j = 0; j < n->nr_slab && n->slab[j].cache != cache; j++)
			;
		if (j == n->nr_slab)
			n->slab[n->nr_slab++].cache = cache;
	}
	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		for (j = 0; j < n->nr_slab; j++)
			if (n->slab[j].cache == (unsigned long)s)
				strscpy(n->slab[j].name, s->name, sizeof(n->slab[j].name));
	}
	mutex_unlock(&slab_mutex);
}

/* "cache+0xoff" for a slab row's lock. */
static const char *lm_slab_name(struct lm_names *n, const struct lm_key *k,
				char *buf, size_t len)
{
	const char *name = NULL;
	unsigned int i;

	if (k->class & LM_GONE_LOCK) {
		name = n->gone ? n->gone + k->lock : "[slab]";
	} else {
		for (i = 0; i < n->nr_slab && !name; i++)
			if (n->slab[i].cache == k->lock)
				name = n->slab[i].name;
		if (!name) {
			/* a row the table was not made for: the locks held now */
			lm_slab_lookup(k->lock, n->sym, sizeof(n->sym));
			name = n->sym;
		}
		if (!name[0])
			name = "[slab]";
	}
	snprintf(buf, len, "%s+0x%x", name, k->off);
	return buf;
}

/* Prepare to name the rows of @snap; without memory, names degrade to offsets. */
void lm_names_init(struct lm_names *n, const struct lm_snapshot *snap, bool show_addr)
{
	unsigned int j, count = 0;
	size_t i;

	memset(n, 0, sizeof(*n));
	n->gone = snap->gone;
	n->show_addr = show_addr;
	lm_names_slab_init(n, snap);
	for (i = 0; i < snap->nr; i++)
		count += lm_class(snap->rows[i].key.class) == LM_PERCPU;
	if (!count)
		return;
	n->pcpu = vzalloc(array_size(count, sizeof(*n->pcpu)));
	if (!n->pcpu)
		return;
	for (i = 0; i < snap->nr; i++) {
		unsigned long lock = snap->rows[i].key.lock;

		if (lm_class(snap->rows[i].key.class) != LM_PERCPU)
			continue;
		for (j = 0; j < n->nr_pcpu && n->pcpu[j].lock != lock; j++)
			;
		if (j == n->nr_pcpu)
			n->pcpu[n->nr_pcpu++].lock = lock;
	}
	if (IS_ENABLED(CONFIG_KALLSYMS_ALL))
		lm_kallsyms_on_each_symbol(lm_pcpu_sym, n);
}
EXPORT_SYMBOL_IF_KUNIT(lm_names_init);

void lm_names_free(struct lm_names *n)
{
	vfree(n->slab);
	n->slab = NULL;
	n->nr_slab = 0;
	vfree(n->pcpu);
	n->pcpu = NULL;
	n->nr_pcpu = 0;
}
EXPORT_SYMBOL_IF_KUNIT(lm_names_free);

/* "sym", "sym+0xoff" or, with @size, "sym+0xoff/0xsize"; "[mod]" glued on. */
const char *lm_addr_name(struct lm_names *n, unsigned long addr, bool size,
			 char *buf, size_t len)
{
	unsigned long symsize, off;
	char *mod = NULL;

	if (!kallsyms_lookup(addr, &symsize, &off, &mod, n->sym)) {
		if (lm_init_text_name(addr, buf, len))
			return buf;
		if (n->show_addr)
			snprintf(buf, len, "0x%lx", addr);
		else
			snprintf(buf, len, "%p", (void *)addr);
		return buf;
	}
	if (size)
		snprintf(buf, len, "%s+0x%lx/0x%lx%s%s%s", n->sym, off, symsize,
			 mod ? "[" : "", mod ?: "", mod ? "]" : "");
	else if (off)
		snprintf(buf, len, "%s+0x%lx%s%s%s", n->sym, off,
			 mod ? "[" : "", mod ?: "", mod ? "]" : "");
	else
		snprintf(buf, len, "%s%s%s%s", n->sym,
			 mod ? "[" : "", mod ?: "", mod ? "]" : "");
	return buf;
}
EXPORT_SYMBOL_IF_KUNIT(lm_addr_name);

/*
 * An overflow row is named after the lock of its longest hold, if it has
 * one: "*overflow*(worst:tasklist_lock)".  Its counts are those of every
 * key that found the directory full.
 */
static const char *lm_ovf_lock_name(struct lm_names *n, const struct lm_key *k,
				    char *buf, size_t len)
{
	static const char pre[] = "*overflow*(worst:";
	size_t p = sizeof(pre) - 1, l;
	struct lm_key w = *k;
	const char *inner;

	if ((!k->lock && !k->site) || len < p + 3)
		return "*overflow*";
	w.class = lm_ovf_class(k->class);
	inner = lm_lock_name(n, &w, buf + p, len - p - 1);
	l = strnlen(inner, len - p - 2);
	memmove(buf + p, inner, l);
	memcpy(buf, pre, p);
	buf[p + l] = ')';
	buf[p + l + 1] = '\0';
	return buf;
}

const char *lm_lock_name(struct lm_names *n, const struct lm_key *k,
			 char *buf, size_t len)
{
	unsigned int i;

	if (lm_class(k->class) == LM_OVERFLOW)
		return lm_ovf_lock_name(n, k, buf, len);
	if (lm_class(k->class) == LM_SLAB)
		return lm_slab_name(n, k, buf, len);
	if (k->class & LM_GONE_LOCK)
		return n->gone ? n->gone + k->lock : "[unloaded module]";
	switch (lm_class(k->class)) {
	case LM_STATIC:
		return lm_addr_name(n, k->lock, false, buf, len);
	case LM_PERCPU:
		for (i = 0; i < n->nr_pcpu; i++) {
			if (n->pcpu[i].lock == k->lock && n->pcpu[i].name[0]) {
				snprintf(buf, len, "percpu:%s+0x%lx", n->pcpu[i].name,
					 k->lock - n->pcpu[i].sym);
				return buf;
			}
		}
		snprintf(buf, len, "percpu:0x%lx", k->lock - (unsigned long)__per_cpu_start);
		return buf;
	case LM_HEAP:
		return "[heap]";
	default:
		return "*overflow*";
	}
}
EXPORT_SYMBOL_IF_KUNIT(lm_lock_name);

const char *lm_site_name(struct lm_names *n, const struct lm_key *k,
			 char *buf, size_t len)
{
	u32 class = k->class;

	/* an overflow row: the site of its longest hold, if any */
	if (lm_class(class) == LM_OVERFLOW) {
		if (!k->site)
			return "*overflow*";
		class = lm_ovf_class(class);
	}
	if (class & LM_GONE_SITE)
		return n->gone ? n->gone + k->site : "[unloaded module]";
	return lm_addr_name(n, k->site, true, buf, len);
}
