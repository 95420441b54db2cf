# Shell helpers for tests that look seeds up the way a user would: through
# the records that name them (sourced after support/lib.sh).

# lw_test_seed_in PREFIX PROVIDER URL-END: the hash of the seed of the dump
# whose URI ends in URL-END among the seeds of PROVIDER's current harvest
# (nothing when there is none).
lw_test_seed_in() {
  local prefix=$1 provider=$2 end=$3 harvest s
  harvest=$(redis-cli -u "$LODWASH_TEST_REDIS" HGET "${prefix}provider:$provider" harvest)
  for s in $(redis-cli -u "$LODWASH_TEST_REDIS" HGET "${prefix}harvest:$harvest" seeds \
               | tr -d '[]"' | tr ',' ' '); do
    if [[ "$(redis-cli -u "$LODWASH_TEST_REDIS" HGET "${prefix}seed:$s" uri)" == *"$end" ]]; then
      echo "$s"
    fi
  done
}
