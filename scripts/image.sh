#!/usr/bin/env bash
# Builds the all-in-one image (Containerfile) with podman, as `make image`
# does after building bin/otelhouse and fetching libchdb.
#
#   IMAGE  the tag (default localhost/otelhouse:dev)
#   BASE   the base image; unset, a local one is made once from Debian's
#          packages with mmdebstrap (glibc, CA certificates, tzdata) and
#          imported, for machines that reach no container registry.
#
# Podman runs rootful with runc here: crun refuses this kernel's hybrid
# cgroups, and the default ulimits are refused, so builds and runs pass
# explicit ones (PODMAN_RUN_FLAGS, also used by the tests).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${IMAGE:-localhost/otelhouse:dev}
LOCAL_BASE=localhost/otelhouse-base:bookworm
BASE=${BASE:-}
VERSION=${VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}
CHDB_VERSION=${CHDB_VERSION:-26.7.3-stable.1}
podman=(podman --runtime runc)

need() {
	command -v "$1" >/dev/null && return
	apt-get update -qq && apt-get install -y -qq "$2" >/dev/null
}
need podman podman
need runc runc

if [ -z "$BASE" ]; then
	BASE=$LOCAL_BASE
	if ! "${podman[@]}" image exists "$BASE"; then
		need mmdebstrap mmdebstrap
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
		echo "making the local base image $BASE with mmdebstrap"
		mmdebstrap --quiet --variant=essential --include=ca-certificates,tzdata \
			--dpkgopt='path-exclude=/usr/share/{doc,man,locale}/*' bookworm "$tmp/base.tar"
		"${podman[@]}" import --quiet "$tmp/base.tar" "$BASE" >/dev/null
	fi
fi

CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o bin/otelhouse-healthcheck ./cmd/otelhouse-healthcheck
mkdir -p bin/image-data
previous=$("${podman[@]}" image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
"${podman[@]}" build --quiet --format docker \
	--ulimit nofile=20000:20000 --ulimit nproc=4096:4096 \
	--build-arg BASE="$BASE" --build-arg VERSION="$VERSION" --build-arg CHDB_VERSION="$CHDB_VERSION" \
	-f Containerfile -t "$IMAGE" . >/dev/null
# The previous build of this tag, now untagged, would pile up build after
# build: remove it, and only it (the host's other dangling images are not
# ours). One a container still uses stays.
current=$("${podman[@]}" image inspect --format '{{.Id}}' "$IMAGE")
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
	"${podman[@]}" rmi "$previous" >/dev/null 2>&1 || true
fi
echo "built $IMAGE ($("${podman[@]}" image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%d MB", $1/1e6}')) on $BASE"
