#!/bin/sh
# Re-fetch the vendored sources from PyPI and check them against the pinned hashes.
# Usage: firmware/third_party/fetch.sh  (then compare with git diff)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --no-binary pymonocypher,pyhacl \
    pymonocypher==4.0.3.4 pyhacl==1.0.1 -d "$tmp"
cd "$tmp"
sha256sum -c <<SUMS
5e56e3d3eb770a53e0b9f6274146663c11a11f3d0de5cd48e3be0428d1b07a4a  pymonocypher-4.0.3.4.tar.gz
2c7653b79fca0a00540602baeb2ab9774e4736de79561e67f755bcddf9ec7598  pyhacl-1.0.1.tar.gz
SUMS
tar xzf pymonocypher-4.0.3.4.tar.gz
tar xzf pyhacl-1.0.1.tar.gz
cp pymonocypher-4.0.3.4/monocypher.c pymonocypher-4.0.3.4/monocypher.h "$here/monocypher/"
dist=pyhacl-1.0.1/hacl-star/dist
for f in "$here"/hacl/*.[ch]; do cp "$dist/gcc-compatible/$(basename "$f")" "$f"; done
for f in "$here"/hacl/internal/*.h; do cp "$dist/gcc-compatible/internal/$(basename "$f")" "$f"; done
cp -r "$dist/karamel/include" "$dist/karamel/krmllib" "$here/hacl/karamel/"
echo "fetched; git diff firmware/third_party shows any change"
