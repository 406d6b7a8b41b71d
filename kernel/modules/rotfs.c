// SPDX-License-Identifier: GPL-2.0
/*
 * rotfs: the smallest filesystem.  A mount pins the module (the VFS takes
 * it with get_fs_type()) and its superblock points at rotfs's
 * file_system_type, in the module's static data.  Unloading while
 * mounted works: the module rots, and umount later runs rotfs's kill_sb
 * in rotting code and puts the pin.  Reclaim must wait for that umount.
 */
#include <linux/fs.h>
#include <linux/module.h>

#define ROTFS_MAGIC 0x726f7466

static int rotfs_fill_super(struct super_block *sb, void *data, int silent)
{
	static const struct tree_descr files[] = { { "" } };

	return simple_fill_super(sb, ROTFS_MAGIC, files);
}

static struct dentry *rotfs_mount(struct file_system_type *type, int flags,
				  const char *dev, void *data)
{
	return mount_nodev(type, flags, data, rotfs_fill_super);
}

static struct file_system_type rotfs_type = {
	.owner		= THIS_MODULE,
	.name		= "rotfs",
	.mount		= rotfs_mount,
	.kill_sb	= kill_litter_super,
};

static int __init rotfs_init(void)
{
	return register_filesystem(&rotfs_type);
}

static void __exit rotfs_exit(void)
{
	unregister_filesystem(&rotfs_type);
}

module_init(rotfs_init);
module_exit(rotfs_exit);
MODULE_ROT_SAFE();
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: a filesystem mounted across unload");
MODULE_ALIAS_FS("rotfs");
