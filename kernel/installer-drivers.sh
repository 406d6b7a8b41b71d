#!/bin/bash
# installer-drivers.sh SRC...: print, as CONFIG_X=m, every tristate option
# declared in the Kconfig files of the driver directories an installer
# image carries (network, USB, input, sound, disks, filesystems), for each
# Linux source tree given; config-installer-drivers.fragment is its output
# for 6.1 and 6.12.  Options whose dependencies the installer configuration
# does not meet are dropped by olddefconfig, so the list may name more than
# is built.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: installer-drivers.sh SRC..." >&2; exit 2; }
dirs="drivers/net/ethernet/intel drivers/net/ethernet/realtek drivers/net/ethernet/broadcom
drivers/net/ethernet/amd drivers/net/ethernet/8390 drivers/net/ethernet/3com
drivers/net/ethernet/dec drivers/net/ethernet/nvidia drivers/net/ethernet/via
drivers/net/ethernet/marvell drivers/net/ethernet/atheros drivers/net/ethernet/sis
drivers/net/ethernet/dlink drivers/net/ethernet/natsemi drivers/net/ethernet/smsc
drivers/usb/host drivers/usb/storage drivers/usb/class drivers/input/mouse
drivers/input/keyboard sound/pci sound/core sound/ac97 drivers/ata
drivers/scsi/Kconfig drivers/cdrom drivers/block/Kconfig drivers/virtio
fs/ext4 fs/ext2 fs/fat fs/isofs fs/udf fs/minix fs/romfs fs/squashfs fs/jfs
fs/reiserfs fs/hfs fs/hfsplus fs/efs fs/qnx4 fs/ufs fs/befs fs/affs fs/bfs
fs/cramfs fs/omfs fs/adfs fs/hpfs fs/sysv fs/ntfs3 fs/exfat fs/fuse fs/9p"
for src in "$@"; do
	[ -f "$src/Kconfig" ] || { echo "installer-drivers.sh: $src is not a Linux source tree" >&2; exit 2; }
	for d in $dirs; do
		if [ -d "$src/$d" ]; then
			find "$src/$d" -name 'Kconfig*'
		elif [ -f "$src/$d" ]; then
			echo "$src/$d"
		fi
	done | xargs awk '
		/^(menu)?config / { sym = $2; next }
		/^[ \t]+tristate/ && sym { print "CONFIG_" sym "=m"; sym = "" }
		/^[ \t]+bool/ { sym = "" }'
done | sort -u
