// SPDX-License-Identifier: GPL-2.0
/*
 * callout - a Costello & Varghese callout facility on timing wheels.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <uapi/linux/callout.h>

static struct dentry *callout_debugfs;

static long callout_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	return -ENOTTY;
}

static const struct file_operations callout_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= callout_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice callout_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "callout",
	.fops	= &callout_fops,
	.mode	= 0666,
};

static int __init callout_module_init(void)
{
	int ret;

	ret = misc_register(&callout_miscdev);
	if (ret) {
		pr_err("cannot register /dev/callout: %d\n", ret);
		return ret;
	}
	callout_debugfs = debugfs_create_dir("callout", NULL);
	pr_info("loaded\n");
	return 0;
}

static void __exit callout_module_exit(void)
{
	debugfs_remove_recursive(callout_debugfs);
	misc_deregister(&callout_miscdev);
	pr_info("unloaded\n");
}

module_init(callout_module_init);
module_exit(callout_module_exit);

MODULE_DESCRIPTION("Callout facility on hashed and hierarchical timing wheels");
MODULE_LICENSE("GPL");
