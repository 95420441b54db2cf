/* The data directory's parents (files/file_store.c): lw_store_mkparents
 * creates what is missing of a deep path (a fresh data directory, a new
 * ab/cd pair), leaves what exists, and names the component that is in the
 * way; a temporary file committed to a path whose directories do not exist
 * yet lands there. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files/files.h"
#include "tests/support/check.h"

static bool is_dir(const char *path)
{
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static void test_parents(const char *root)
{
  char path[1024], dir[1024];
  LwError err;
  snprintf(path, sizeof(path), "%s/data/raw/ab/cd/abcd0000", root);
  CHECK_INT_EQ(lw_store_mkparents(path, &err), LW_OK);
  snprintf(dir, sizeof(dir), "%s/data/raw/ab/cd", root);
  CHECK(is_dir(dir));
  CHECK(!is_dir(path)); /* the file's own name is not made a directory */
  /* there already: nothing to do; a sibling under it */
  CHECK_INT_EQ(lw_store_mkparents(path, &err), LW_OK);
  snprintf(path, sizeof(path), "%s/data/raw/ab/ef/abef0000", root);
  CHECK_INT_EQ(lw_store_mkparents(path, &err), LW_OK);
  snprintf(dir, sizeof(dir), "%s/data/raw/ab/ef", root);
  CHECK(is_dir(dir));
  /* a trailing slash: the directory itself */
  snprintf(path, sizeof(path), "%s/data/clean/", root);
  CHECK_INT_EQ(lw_store_mkparents(path, &err), LW_OK);
  snprintf(dir, sizeof(dir), "%s/data/clean", root);
  CHECK(is_dir(dir));
  /* no directory in it: nothing to make */
  CHECK_INT_EQ(lw_store_mkparents("file-here", &err), LW_OK);
}

static void test_in_the_way(const char *root)
{
  char file[1024], path[1024];
  snprintf(file, sizeof(file), "%s/plain", root);
  FILE *f = fopen(file, "w");
  CHECK(f != NULL);
  fclose(f);
  LwError err;
  snprintf(path, sizeof(path), "%s/plain/ab/cd/x", root);
  CHECK_INT_EQ(lw_store_mkparents(path, &err), LW_ERR_IO);
  CHECK(strstr(err.message, "cannot create") != NULL);
  CHECK(strstr(err.message, "/plain") != NULL);
}

static void test_commit(const char *root)
{
  char data[1024], tmp[1024], final[1024];
  snprintf(data, sizeof(data), "%s/fresh", root); /* not there yet */
  FILE *f = NULL;
  LwError err;
  CHECK_INT_EQ(lw_store_tmpfile(data, tmp, sizeof(tmp), &f, &err), LW_OK);
  fputs("<s> <p> <o> .\n", f);
  fclose(f);
  snprintf(final, sizeof(final), "%s/raw/12/34/1234", data);
  CHECK_INT_EQ(lw_store_commit(tmp, final, &err), LW_OK);
  struct stat sb;
  CHECK(stat(final, &sb) == 0 && sb.st_size == 14);
  CHECK(stat(tmp, &sb) != 0 && errno == ENOENT);
}

int main(void)
{
  char *root = lw_test_tmpdir();
  test_parents(root);
  test_in_the_way(root);
  test_commit(root);
  lw_test_rmtree(root);
  free(root);
  return lw_test_finish();
}
