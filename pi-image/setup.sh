# The Raspberry Pi image's configuration, run on the host by mmdebstrap's customize hook with
# the new arm64 root as $1 (vm_tests/pi_image.py; docs/operations.md, "The image").
set -eu
root="$1"
here="$(dirname "$0")"
cp -r "$here/rootfs/." "$root/"
mkdir -p "$root/srv/table" "$root/var/lib/systemd/timesync" "$root/var/lib/dealer-station"
# systemd-logind's StateDirectory=, which systemd would create at its start and cannot on the
# read-only root (logind then fails, and with it the console's login sessions).
mkdir -p -m 0755 "$root/var/lib/systemd/linger"

# raspi-firmware writes cmdline.txt and config.txt at every kernel install: the root by its
# label, the consoles on the screen only (the UART belongs to the table's devices), and
# /etc/default/raspi-firmware-custom appended to config.txt.
sed -i -e 's/^#\?ROOTPART=.*/ROOTPART=LABEL=RASPIROOT/' \
    -e 's/^#\?CONSOLES=.*/CONSOLES="tty0"/' "$root/etc/default/raspi-firmware"
grep -q '^ROOTPART=LABEL=RASPIROOT' "$root/etc/default/raspi-firmware"
grep -q '^CONSOLES="tty0"' "$root/etc/default/raspi-firmware"

systemctl --root="$root" enable systemd-networkd.service systemd-resolved.service \
    systemd-timesyncd.service fstrim.timer
# Nothing on the UART but the table's device; no unattended apt or man-db work on a read-only
# root; the random seed cannot be saved there (the Pi's hardware RNG seeds the kernel).
systemctl --root="$root" mask serial-getty@ttyAMA0.service serial-getty@ttyS0.service \
    serial-getty@ttyS1.service apt-daily.timer apt-daily-upgrade.timer man-db.timer \
    e2scrub_all.timer e2scrub_reap.service systemd-random-seed.service
ln -sf /run/systemd/resolve/stub-resolv.conf "$root/etc/resolv.conf"

# The firmware partition's files with the settings above (config.txt, cmdline.txt), as the
# kernel's postinst writes them (the hook acts on "configure" only).
for kernel in "$root"/boot/vmlinuz-*; do
    DEB_MAINT_PARAMS=configure chroot "$root" /etc/kernel/postinst.d/z50-raspi-firmware \
        "${kernel##*/vmlinuz-}"
done
grep -q '^enable_uart=1' "$root/boot/firmware/config.txt"
grep -q '^dtparam=watchdog=on' "$root/boot/firmware/config.txt"
grep -q 'root=LABEL=RASPIROOT' "$root/boot/firmware/cmdline.txt"

# As Debian's own Raspberry Pi images: root logs in on the console without a password until
# the technician sets one (docs/operations.md, first boot); a new machine id at each boot.
sed -i 's,^root:[^:]*:,root::,' "$root/etc/shadow"
rm -f "$root/etc/machine-id" "$root/var/lib/dbus/machine-id"
: > "$root/etc/machine-id"
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
