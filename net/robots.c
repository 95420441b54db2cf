#include "net/net.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
  char *pattern;
  bool allow;
} Rule;

typedef struct {
  Rule *rules;
  size_t count, cap;
  long delay_ms;
} RuleSet;

struct LwRobots {
  RuleSet own;  /* groups naming the agent */
  RuleSet star; /* "*" groups */
  bool have_own;
};

static bool add_rule(RuleSet *set, const char *value, size_t len, bool allow)
{
  if (set->count == set->cap) {
    size_t cap = set->cap ? set->cap * 2 : 8;
    Rule *r = realloc(set->rules, cap * sizeof(*r));
    if (!r) {
      return false;
    }
    set->rules = r;
    set->cap = cap;
  }
  char *p = malloc(len + 1);
  if (!p) {
    return false;
  }
  memcpy(p, value, len);
  p[len] = '\0';
  set->rules[set->count++] = (Rule){p, allow};
  return true;
}

/* Does pattern match the start of path ("*" any run, a final "$" the end)? */
static bool pattern_matches(const char *pat, const char *path)
{
  while (*pat) {
    if (*pat == '*') {
      while (*pat == '*') {
        ++pat;
      }
      if (!*pat) {
        return true;
      }
      for (const char *p = path; *p; ++p) {
        if (pattern_matches(pat, p)) {
          return true;
        }
      }
      return !strcmp(pat, "$");
    }
    if (*pat == '$' && pat[1] == '\0') {
      return *path == '\0';
    }
    if (*pat != *path) {
      return false;
    }
    ++pat;
    ++path;
  }
  return true;
}

/* The line's field name (lower-cased into name) and trimmed value. */
static bool split_line(const char *line, size_t len, char *name, size_t name_size,
                       const char **value, size_t *value_len)
{
  const char *hash = memchr(line, '#', len);
  if (hash) {
    len = (size_t)(hash - line);
  }
  const char *colon = memchr(line, ':', len);
  if (!colon) {
    return false;
  }
  size_t n = 0;
  for (const char *p = line; p < colon && n + 1 < name_size; ++p) {
    if (!isspace((unsigned char)*p)) {
      name[n++] = (char)tolower((unsigned char)*p);
    }
  }
  name[n] = '\0';
  const char *v = colon + 1, *end = line + len;
  while (v < end && isspace((unsigned char)*v)) {
    ++v;
  }
  while (end > v && isspace((unsigned char)end[-1])) {
    --end;
  }
  *value = v;
  *value_len = (size_t)(end - v);
  return true;
}

/* Does a user-agent value name agent? Its first word, compared without case. */
static bool names_agent(const char *value, size_t len, const char *agent)
{
  size_t word = 0;
  while (word < len && !isspace((unsigned char)value[word]) && value[word] != '/') {
    ++word;
  }
  return word == strlen(agent) && !strncasecmp(value, agent, word);
}

LwRobots *lw_robots_parse(const char *text, size_t len, const char *agent)
{
  LwRobots *r = calloc(1, sizeof(*r));
  if (!r) {
    return NULL;
  }
  r->own.delay_ms = r->star.delay_ms = -1;
  bool group_own = false, group_star = false, in_rules = false;
  const char *p = text, *end = text + len;
  bool ok = true;
  while (p < end && ok) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *line_end = nl ? nl : end;
    char name[32];
    const char *value;
    size_t vlen;
    if (split_line(p, (size_t)(line_end - p), name, sizeof(name), &value, &vlen)) {
      if (!strcmp(name, "user-agent")) {
        if (in_rules) { /* a new group starts */
          group_own = group_star = in_rules = false;
        }
        group_own = group_own || names_agent(value, vlen, agent);
        group_star = group_star || (vlen == 1 && *value == '*');
        r->have_own = r->have_own || group_own;
      } else if (!strcmp(name, "allow") || !strcmp(name, "disallow") ||
                 !strcmp(name, "crawl-delay")) {
        in_rules = true;
        RuleSet *sets[2] = {group_own ? &r->own : NULL, group_star ? &r->star : NULL};
        for (int i = 0; i < 2; ++i) {
          if (!sets[i]) {
            continue;
          }
          if (!strcmp(name, "crawl-delay")) {
            char buf[32];
            snprintf(buf, sizeof(buf), "%.*s", (int)(vlen < 31 ? vlen : 31), value);
            double secs = strtod(buf, NULL);
            if (secs >= 0 && secs < 86400) {
              sets[i]->delay_ms = (long)(secs * 1000);
            }
          } else if (vlen > 0) { /* an empty Disallow allows everything */
            ok = add_rule(sets[i], value, vlen, name[0] == 'a');
          }
        }
      }
    }
    p = nl ? nl + 1 : end;
  }
  if (!ok) {
    lw_robots_free(r);
    return NULL;
  }
  return r;
}

static const RuleSet *rules_for(const LwRobots *r)
{
  return r->have_own ? &r->own : &r->star;
}

bool lw_robots_allowed(const LwRobots *robots, const char *path)
{
  if (!path || !*path) {
    path = "/";
  }
  if (!strcmp(path, "/robots.txt")) {
    return true;
  }
  const RuleSet *set = rules_for(robots);
  size_t best = 0;
  bool allowed = true;
  for (size_t i = 0; i < set->count; ++i) {
    const Rule *rule = &set->rules[i];
    size_t n = strlen(rule->pattern);
    if (pattern_matches(rule->pattern, path) &&
        (n > best || (n == best && rule->allow && !allowed))) {
      best = n;
      allowed = rule->allow;
    }
  }
  return allowed;
}

long lw_robots_crawl_delay_ms(const LwRobots *robots)
{
  return rules_for(robots)->delay_ms;
}

static void free_set(RuleSet *set)
{
  for (size_t i = 0; i < set->count; ++i) {
    free(set->rules[i].pattern);
  }
  free(set->rules);
}

void lw_robots_free(LwRobots *robots)
{
  if (!robots) {
    return;
  }
  free_set(&robots->own);
  free_set(&robots->star);
  free(robots);
}
