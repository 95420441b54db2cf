# A private Docker engine for machines where no image registry is reachable
# (see ../docs/deploy.md, "Trying it without a registry"): sourced by
# tests/test_docker.sh, usable by hand.
#
#   source docker/local-engine.sh
#   lw_docker_engine_start /var/tmp/lodwash-docker   # dockerd, DOCKER_HOST exported
#   lw_docker_base_images                            # debian:bookworm(-slim), redis:7
#   ...
#   lw_docker_engine_stop
#
# Everything lives under one folder (socket, data root, exec root, log), so
# the machine's own Docker setup is never touched; keep the folder between
# runs and the base images and the layer cache are reused. One engine per
# folder at a time: a lock is held until lw_docker_engine_stop.

# lw_stop_pid and friends, when sourced by hand
if ! declare -F lw_stop_pid > /dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/servers.sh"
fi

LW_DOCKERD_PID=""
LW_DOCKER_DIR=""
LW_DOCKER_LOCK_FD=""

# lw_docker_engine_start DIR: starts dockerd with everything under DIR and
# exports DOCKER_HOST. Returns 2 when the engine cannot run here (no dockerd,
# not root), 1 when it failed to start (its log is printed).
lw_docker_engine_start() {
  local d=$1
  if ! command -v dockerd > /dev/null || ! command -v docker > /dev/null; then
    echo "docker engine: dockerd or docker not installed (apt-get install docker.io)" >&2
    return 2
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "docker engine: dockerd must run as root" >&2
    return 2
  fi
  mkdir -p "$d"
  LW_DOCKER_DIR=$d
  exec {LW_DOCKER_LOCK_FD}> "$d/lock"
  if ! flock -w 1200 "$LW_DOCKER_LOCK_FD"; then
    echo "docker engine: $d is in use by another run (lock $d/lock)" >&2
    return 1
  fi
  # An engine left by a run that was killed before it could stop it.
  if [ -s "$d/dockerd.pid" ] && kill -0 "$(cat "$d/dockerd.pid")" 2>/dev/null; then
    lw_stop_pid "$(cat "$d/dockerd.pid")" 30
  fi
  lw_docker_unmount "$d"
  dockerd --host "unix://$d/docker.sock" --data-root "$d/data-root" \
    --exec-root "$d/exec-root" --pidfile "$d/dockerd.pid" --mtu 1400 \
    > "$d/dockerd.log" 2>&1 {LW_DOCKER_LOCK_FD}>&- &
  LW_DOCKERD_PID=$!
  export DOCKER_HOST="unix://$d/docker.sock"
  local _
  for _ in $(seq 300); do
    if docker info > /dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$LW_DOCKERD_PID" 2>/dev/null; then
      break
    fi
    sleep 0.1
  done
  echo "docker engine: dockerd did not start; its log:" >&2
  tail -20 "$d/dockerd.log" >&2
  lw_docker_engine_stop
  return 1
}

# lw_docker_engine_stop: stops every container of the engine, then dockerd
# (SIGTERM, a bounded wait, SIGKILL), and releases the folder.
lw_docker_engine_stop() {
  if [ -n "$LW_DOCKERD_PID" ]; then
    local running
    running=$(docker ps -q 2>/dev/null || true)
    if [ -n "$running" ]; then
      # shellcheck disable=SC2086
      docker kill $running > /dev/null 2>&1 || true
    fi
    lw_stop_pid "$LW_DOCKERD_PID" 30
    LW_DOCKERD_PID=""
  fi
  if [ -n "$LW_DOCKER_DIR" ]; then
    lw_docker_unmount "$LW_DOCKER_DIR"
  fi
  if [ -n "$LW_DOCKER_LOCK_FD" ]; then
    exec {LW_DOCKER_LOCK_FD}>&-
    LW_DOCKER_LOCK_FD=""
  fi
}

# What a stopped or killed dockerd can leave mounted under its exec root.
lw_docker_unmount() {
  local m
  for m in $(awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}

# lw_docker_gateway: the docker0 bridge's address, where the containers reach
# the host (the test's web servers and published ports).
lw_docker_gateway() {
  local gw
  gw=$(docker network inspect bridge -f '{{(index .IPAM.Config 0).Gateway}}' 2>/dev/null || true)
  if [ -z "$gw" ]; then
    gw=$(ip -4 -o addr show docker0 | awk '{ split($4, a, "/"); print a[1] }')
  fi
  echo "$gw"
}

# lw_docker_base_images: makes the images the project's Dockerfiles start
# from when no registry can give them: debian:bookworm-slim and
# debian:bookworm (debootstrap from the machine's apt mirror) and redis:7 (a
# stand-in running Debian's redis-server the way the official image does).
# Does nothing for an image already there.
lw_docker_base_images() {
  if ! docker image inspect debian:bookworm-slim > /dev/null 2>&1; then
    lw_docker_debootstrap || return 1
  fi
  docker image inspect debian:bookworm > /dev/null 2>&1 \
    || docker tag debian:bookworm-slim debian:bookworm
  if ! docker image inspect redis:7 > /dev/null 2>&1; then
    docker build -q -t redis:7 - > /dev/null <<'DOCKERFILE' || return 1
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends redis-server redis-tools \
    && rm -rf /var/lib/apt/lists/* && mkdir -p /data
# Like the official image: no config file, so listen on every address; Debian's
# protected mode would refuse the other containers.
RUN printf '#!/bin/sh\nif [ "$1" = redis-server ]; then shift; exec redis-server --protected-mode no "$@"; fi\nexec "$@"\n' \
      > /usr/local/bin/docker-entrypoint.sh && chmod +x /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
DOCKERFILE
  fi
}

lw_docker_debootstrap() {
  if ! command -v debootstrap > /dev/null; then
    echo "docker engine: debootstrap not installed" >&2
    return 1
  fi
  local rootfs="$LW_DOCKER_DIR/rootfs" mirror
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
  mirror=${mirror:-http://deb.debian.org/debian}
  rm -rf "$rootfs"
  if ! debootstrap --variant=minbase bookworm "$rootfs" "$mirror" > "$LW_DOCKER_DIR/debootstrap.log" 2>&1; then
    echo "docker engine: debootstrap failed; see $LW_DOCKER_DIR/debootstrap.log" >&2
    return 1
  fi
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/"
    rm -f "$rootfs/etc/apt/sources.list"
  fi
  rm -rf "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import -c 'CMD ["bash"]' - debian:bookworm-slim > /dev/null
  local status=$?
  rm -rf "$rootfs"
  return $status
}
