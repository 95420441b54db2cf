/*
 * Test support: a folder's entries in name order. readdir's order depends on
 * the file system (ext4 hashes names with a seed of its own), so a test that
 * walks the shared test data in readdir order reads its inputs, or draws its
 * random numbers, in another order on another machine (CI).
 */
#ifndef LW_TEST_DIR_LIST_H
#define LW_TEST_DIR_LIST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char **names; /* sorted by strcmp (bytes, whatever the locale) */
  size_t count;
} LwTestDirList;

/* The entries of dir whose names end in suffix ("" for all), "." and ".."
 * and hidden ones left out. False when dir cannot be opened (list empty). */
bool lw_test_dir_list(const char *dir, const char *suffix, LwTestDirList *list);

void lw_test_dir_list_free(LwTestDirList *list);

#endif
