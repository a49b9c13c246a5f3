#!/usr/bin/env bash
# Builds the image the Docker backend's tests run in, from Debian's own packages, once:
#   localhost/hermes-python:bookworm  =  mmdebstrap --variant=essential --include=python3 bookworm
# The essential variant already has bash, coreutils (head, sleep) and util-linux (setsid),
# which the backend's command wrapper uses; python3 is for execute_code.
# The tarball is cached by the recipe's digest in /var/cache/hermes-ci (outside the clone),
# and the image carries that digest as a label: a second run with the same recipe does nothing.
# Needs root, podman and mmdebstrap (apt-get install podman mmdebstrap). Usage: bash .ci/build-image.sh
set -euo pipefail

image=${HERMES_DOCKER_TEST_IMAGE:-localhost/hermes-python:bookworm}
cache=${HERMES_CI_CACHE:-/var/cache/hermes-ci}
suite=bookworm
variant=essential
include=python3

for tool in podman mmdebstrap; do
  command -v "$tool" >/dev/null || { echo "build-image: $tool is not installed (apt-get install podman mmdebstrap)" >&2; exit 1; }
done

# The host's apt sources for this suite, when it has any (the mirror this machine reaches);
# otherwise mmdebstrap's own default. Each file is pasted into the image's sources as it is.
sources=()
for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$file" ] && grep -Eq "^[^#]*\b$suite\b" "$file" && sources+=("$file")
done

recipe="mmdebstrap --variant=$variant --include=$include $suite"
digest=$( { echo "$recipe"; for file in "${sources[@]}"; do grep -v '^#' "$file"; done; } | sha256sum | cut -c1-16)

if podman image exists "$image" \
  && [ "$(podman image inspect --format '{{index .Labels "hermes.recipe"}}' "$image")" = "$digest" ]; then
  echo "build-image: $image is up to date (recipe $digest)"
  exit 0
fi

mkdir -p "$cache"
tarball="$cache/hermes-python-$suite-$digest.tar"
if [ ! -s "$tarball" ]; then
  echo "build-image: $recipe (about 90 s)"
  started=$SECONDS
  # Written beside the cache entry and renamed, so an interrupted build never counts as cached.
  mmdebstrap --quiet --format=tar --variant="$variant" --include="$include" "$suite" "$tarball.part" "${sources[@]}"
  mv "$tarball.part" "$tarball"
  echo "build-image: rootfs built in $((SECONDS - started)) s"
fi

podman import --quiet --change "LABEL hermes.recipe=$digest" --change 'CMD ["bash"]' "$tarball" "$image" >/dev/null
podman run --rm --network=none "$image" bash -c 'python3 --version; setsid --version | head -1' \
  || { echo "build-image: $image was imported but does not run bash and python3" >&2; exit 1; }
echo "build-image: $image imported (recipe $digest)"
