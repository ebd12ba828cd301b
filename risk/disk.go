package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Tools that format, partition or wipe disks.

var diskJudges = map[string]judgeFunc{}

func init() {
	for _, n := range []string{"mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "cgdisk",
		"mkdosfs", "mkntfs", "mkexfatfs", "mkexfat", "blkdiscard", "diskpart", "format-volume", "clear-disk",
		"initialize-disk", "remove-partition", "resize-partition", "format", "cryptsetup", "zpool", "zfs", "diskutil",
		"hdparm", "badblocks", "lvremove", "vgremove", "pvremove", "dmsetup"} {
		diskJudges[n] = disk
	}
}

// disk judges disk tools; diskPrefix those named mkfs.TYPE and newfs*.
func disk(j *judge, c *shell.Command) {
	if isDiskTool(c, strings.ToLower(c.Name())) {
		j.hit(c, ruleMkfs, "%s formats or repartitions a disk", c.Name())
	}
}

func diskPrefix(name string) bool {
	return strings.HasPrefix(name, "mkfs.") || strings.HasPrefix(name, "newfs")
}

func isDiskTool(c *shell.Command, name string) bool {
	args := c.Args
	switch {
	case name == "mkfs" || strings.HasPrefix(name, "mkfs.") || strings.HasPrefix(name, "newfs"):
		return true
	case slices.Contains([]string{"mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "cgdisk", "mkdosfs", "mkntfs", "mkexfatfs", "mkexfat", "blkdiscard", "diskpart", "format-volume", "clear-disk", "initialize-disk", "remove-partition", "resize-partition", "mkisofs"}, name):
		if name == "fdisk" || name == "sfdisk" || name == "parted" || name == "gdisk" || name == "sgdisk" {
			// Listing partitions is harmless.
			if anyArgs.Has(args, "l", "list") && len(args) <= 3 || anyArgs.Has(args, "", "version", "help") {
				return false
			}
		}
		return name != "mkisofs"
	case name == "format":
		if c.Dialect == shell.Cmd {
			return true
		}
		for _, a := range args[1:] {
			if len(a.Value) == 2 && a.Value[1] == ':' {
				return true
			}
		}
	case name == "cryptsetup":
		return hasWord(args, "luksFormat", "erase", "luksErase", "reencrypt")
	case name == "zpool" || name == "zfs":
		return hasWord(args, "destroy", "labelclear")
	case name == "diskutil":
		for _, a := range args[1:] {
			l := strings.ToLower(a.Value)
			if strings.HasPrefix(l, "erase") || slices.Contains([]string{"partitiondisk", "zerodisk", "randomdisk", "secureerase", "reformat", "apfs"}, l) {
				if l == "apfs" && !hasWord(args, "deleteContainer", "eraseVolume", "deleteVolume") {
					continue
				}
				return true
			}
		}
	case name == "hdparm":
		return anyArgs.Has(args, "", "security-erase", "security-erase-enhanced", "trim-sector-ranges", "write-sector", "make-bad-sector")
	case name == "badblocks":
		return anyArgs.Has(args, "w")
	case slices.Contains([]string{"lvremove", "vgremove", "pvremove", "dmsetup"}, name):
		return name != "dmsetup" || hasWord(args, "remove", "remove_all", "wipe_table")
	}
	return false
}
