#include "tests/support/dir_list.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

bool lw_test_dir_list(const char *dir, const char *suffix, LwTestDirList *list)
{
  list->names = NULL;
  list->count = 0;
  DIR *d = opendir(dir);
  if (!d) {
    return false;
  }
  size_t cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || !ends_with(e->d_name, suffix)) {
      continue;
    }
    if (list->count == cap) {
      cap = cap ? 2 * cap : 64;
      char **grown = realloc(list->names, cap * sizeof(*grown));
      if (!grown) {
        break;
      }
      list->names = grown;
    }
    list->names[list->count++] = strdup(e->d_name);
  }
  closedir(d);
  if (list->count) {
    qsort(list->names, list->count, sizeof(*list->names), by_name);
  }
  return true;
}

void lw_test_dir_list_free(LwTestDirList *list)
{
  for (size_t i = 0; i < list->count; ++i) {
    free(list->names[i]);
  }
  free(list->names);
  list->names = NULL;
  list->count = 0;
}
