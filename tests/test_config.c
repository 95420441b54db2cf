/* Configuration: defaults, LODWASH_* variables, flags (which win), program
 * flags, errors and --help. */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tests/support/check.h"

/* argv arrays must be writable (char **): copies of string literals. */
typedef struct {
  int argc;
  char *argv[32];
} Args;

static Args args_of(const char *const *list)
{
  Args a = {0, {0}};
  for (; *list && a.argc < 31; ++list) {
    a.argv[a.argc++] = strdup(*list);
  }
  return a;
}

static void args_free(Args *a)
{
  for (int i = 0; i < a->argc; ++i) {
    free(a->argv[i]);
  }
}

static int parse(LwConfig *cfg, LwError *err, const LwProgram *prog, int argc, char **argv,
                 int *first)
{
  return (int)lw_config_parse(cfg, argc, argv, prog, first, err);
}

static void test_defaults(void)
{
  unsetenv("LODWASH_REDIS");
  LwConfig cfg;
  lw_config_init(&cfg);
  CHECK_STR_EQ(cfg.redis_url, "redis://127.0.0.1:6379/0");
  CHECK_STR_EQ(cfg.prefix, "lodwash:");
  CHECK_STR_EQ(cfg.data_dir, "./data");
  CHECK_STR_EQ(cfg.store, "files");
  CHECK_STR_EQ(cfg.graph_base, "http://lodwash.example.org/graph");
  CHECK_INT_EQ(cfg.download_max_bytes, 2LL * 1024 * 1024 * 1024);
  CHECK_INT_EQ(cfg.sort_memory_bytes, 256LL * 1024 * 1024);
  CHECK_INT_EQ(cfg.heartbeat_ttl_s, 30);
  CHECK_INT_EQ(cfg.max_attempts, 5);
  CHECK_INT_EQ(cfg.interval_s, 60);
  CHECK(cfg.log_level == LW_LOG_INFO);
  CHECK(!cfg.log_json);
  lw_config_free(&cfg);
  lw_config_free(&cfg); /* twice is safe */
  lw_config_free(NULL);
}

static void test_env_and_flags(void)
{
  setenv("LODWASH_REDIS", "redis://env:1/2", 1);
  setenv("LODWASH_DATA", "/env/data", 1);
  setenv("LODWASH_HEARTBEAT_TTL", "7", 1);
  setenv("LODWASH_LOG_JSON", "1", 1);
  setenv("LODWASH_STAGES", "noop", 1);
  const char *stages = NULL;
  bool idle = false;
  long long count = 3;
  LwOption opts[] = {
    {"stages", LW_OPT_STRING, &stages, "LIST", "stages", "LODWASH_STAGES"},
    {"exit-when-idle", LW_OPT_BOOL, &idle, NULL, "idle", NULL},
    {"count", LW_OPT_INT, &count, "N", "count", NULL},
  };
  LwProgram prog = {"prog", "[OPTIONS] ARGS", NULL, opts, 3};
  Args argv = args_of((const char *const[]){
    "prog", "--redis", "redis://flag:3/4", "--exit-when-idle", "--count=2k", "--log-level",
    "debug", "--archive-max-bytes", "1M", "rest", "--data", "notparsed", NULL});
  LwConfig cfg;
  LwError err;
  int first = 0;
  CHECK_INT_EQ(parse(&cfg, &err, &prog, 12, argv.argv, &first), LW_OK);
  CHECK_STR_EQ(cfg.redis_url, "redis://flag:3/4"); /* flag beats env */
  CHECK_STR_EQ(cfg.data_dir, "/env/data");         /* env beats default */
  CHECK_INT_EQ(cfg.heartbeat_ttl_s, 7);
  CHECK(cfg.log_json);
  CHECK(cfg.log_level == LW_LOG_DEBUG);
  CHECK_INT_EQ(cfg.archive_max_bytes, 1024 * 1024);
  CHECK_STR_EQ(stages, "noop");
  CHECK(idle);
  CHECK_INT_EQ(count, 2048);
  CHECK_INT_EQ(first, 9); /* stops at the first non-option */
  CHECK_STR_EQ(argv.argv[first], "rest");
  args_free(&argv);
  lw_config_free(&cfg);

  unsetenv("LODWASH_REDIS");
  unsetenv("LODWASH_DATA");
  unsetenv("LODWASH_HEARTBEAT_TTL");
  unsetenv("LODWASH_LOG_JSON");
  unsetenv("LODWASH_STAGES");
}

static void test_errors(void)
{
  LwProgram prog = {"prog", NULL, NULL, NULL, 0};
  LwConfig cfg;
  LwError err;
  int first;
  Args bad_flag = args_of((const char *const[]){"prog", "--no-such-flag", NULL});
  CHECK_INT_EQ(parse(&cfg, &err, &prog, 2, bad_flag.argv, &first), LW_ERR_USAGE);
  CHECK(strstr(err.message, "--no-such-flag") != NULL);
  lw_config_free(&cfg);
  args_free(&bad_flag);

  Args bad_number = args_of((const char *const[]){"prog", "--max-attempts", "many", NULL});
  CHECK_INT_EQ(parse(&cfg, &err, &prog, 3, bad_number.argv, &first), LW_ERR_USAGE);
  CHECK(strstr(err.message, "--max-attempts") != NULL);
  lw_config_free(&cfg);
  args_free(&bad_number);

  /* a host name is not an address: refused at start, not at every download */
  Args bad_allow = args_of(
    (const char *const[]){"prog", "--allow-net", "example.org", NULL});
  CHECK_INT_EQ(parse(&cfg, &err, &prog, 3, bad_allow.argv, &first), LW_ERR_USAGE);
  CHECK(strstr(err.message, "--allow-net") != NULL);
  lw_config_free(&cfg);
  args_free(&bad_allow);
  Args good_allow = args_of(
    (const char *const[]){"prog", "--allow-net", "127.0.0.1:8080,10.0.0.0/8", NULL});
  CHECK_INT_EQ(parse(&cfg, &err, &prog, 3, good_allow.argv, &first), LW_OK);
  lw_config_free(&cfg);
  args_free(&good_allow);

  Args missing = args_of((const char *const[]){"prog", "--redis", NULL});
  CHECK_INT_EQ(parse(&cfg, &err, &prog, 2, missing.argv, &first), LW_ERR_USAGE);
  lw_config_free(&cfg);
  args_free(&missing);

  setenv("LODWASH_LOG_LEVEL", "chatty", 1);
  Args none = args_of((const char *const[]){"prog", NULL});
  CHECK_INT_EQ(parse(&cfg, &err, &prog, 1, none.argv, &first), LW_ERR_USAGE);
  CHECK(strstr(err.message, "LODWASH_LOG_LEVEL") != NULL);
  lw_config_free(&cfg);
  args_free(&none);
  unsetenv("LODWASH_LOG_LEVEL");

  Args zero_ttl = args_of((const char *const[]){"prog", "--heartbeat-ttl", "0", NULL});
  CHECK_INT_EQ(parse(&cfg, &err, &prog, 3, zero_ttl.argv, &first), LW_ERR_USAGE);
  CHECK(strstr(err.message, "--heartbeat-ttl") != NULL);
  lw_config_free(&cfg);
  args_free(&zero_ttl);

  CHECK_INT_EQ(lw_config_set(&cfg, "nope", "1", &err), LW_ERR_USAGE);
  long long v;
  CHECK(lw_parse_size("10", &v) && v == 10);
  CHECK(lw_parse_size("3G", &v) && v == 3LL << 30);
  CHECK(!lw_parse_size("-1", &v));
  CHECK(!lw_parse_size("1X", &v));
  CHECK(!lw_parse_size("", &v));
  CHECK(!lw_parse_size("99999999999999999999", &v));
}

static void test_help(void)
{
  LwProgram prog = {"prog", "[OPTIONS]", "Does things.", NULL, 0};
  char *path = lw_test_tmpdir();
  char file[4200];
  snprintf(file, sizeof(file), "%s/help.txt", path);
  FILE *out = fopen(file, "w+");
  lw_config_usage(out, &prog);
  rewind(out);
  char text[16384];
  size_t n = fread(text, 1, sizeof(text) - 1, out);
  text[n] = '\0';
  fclose(out);
  CHECK(strstr(text, "Usage: prog [OPTIONS]") != NULL);
  CHECK(strstr(text, "--redis URL") != NULL);
  CHECK(strstr(text, "LODWASH_REDIS") != NULL);
  CHECK(strstr(text, "LODWASH_ARCHIVE_MAX_RATIO") != NULL);
  lw_test_rmtree(path);
  free(path);

  LwConfig cfg;
  char ua[128];
  lw_config_init(&cfg);
  lw_config_user_agent(&cfg, ua, sizeof(ua));
  CHECK(!strncmp(ua, "lodwash/", 8));
  lw_config_set(&cfg, "contact", "https://example.org/about", NULL);
  lw_config_user_agent(&cfg, ua, sizeof(ua));
  CHECK(strstr(ua, "(+https://example.org/about)") != NULL);
  lw_config_free(&cfg);
}

int main(void)
{
  test_defaults();
  test_env_and_flags();
  test_errors();
  test_help();
  return lw_test_finish();
}
