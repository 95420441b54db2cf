/* Finding things in a source page (sources/sources.h) for the tests of the
 * source parsers: a dataset by id, a dump by URL, a skip's reason, a next
 * document. Each says on stderr what it did not find, with what there was. */
#ifndef LW_TEST_SOURCE_LOOKUP_H
#define LW_TEST_SOURCE_LOOKUP_H

#include <stdbool.h>

#include "sources/sources.h"

/* Prints page's datasets, dumps, skips and next documents to stderr. */
void lw_test_print_page(const LwSourcePage *page);

LwSourceDataset *lw_test_dataset(const LwSourcePage *page, const char *id);
const LwSourceDump *lw_test_dump(const LwSourceDataset *ds, const char *url);

/* The reason ds skipped url for (url NULL: a skip without a URL), or NULL. */
const char *lw_test_skip_reason(const LwSourceDataset *ds, const char *url);

bool lw_test_has_next(const LwSourcePage *page, const char *url);

#endif
