# A stage's queue as an operator reads it with redis-cli (sourced): the
# ring queue:<stage> of its harvests' lanes queue:<stage>:<harvest>
# (queue/keys.h). Each is a script for EVAL with the ring as its one key:
#   redis-cli EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:download"
# LW_QUEUE_LEN_LUA    the number of jobs waiting
# LW_QUEUE_JOBS_LUA   every job waiting, lane after lane
# LW_QUEUE_CLEAR_LUA  deletes every lane and the ring
lw_each_lane="for _, h in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do local lane = KEYS[1] .. ':' .. h"
LW_QUEUE_LEN_LUA="local n = 0 $lw_each_lane n = n + redis.call('LLEN', lane) end return n"
LW_QUEUE_JOBS_LUA="local out = {} $lw_each_lane for _, j in ipairs(redis.call('LRANGE', lane, 0, -1)) do out[#out + 1] = j end end return out"
LW_QUEUE_CLEAR_LUA="$lw_each_lane redis.call('DEL', lane) end redis.call('DEL', KEYS[1])"
