/* The parts of the kernel's struct file, path, dentry, qstr and inode the task_vma and
 * task_file iterator fixtures read, as CO-RE declarations.  BPF programs only. */
#ifndef CORPUS_FILE_TYPES_H
#define CORPUS_FILE_TYPES_H

struct qstr {
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct dentry {
	struct qstr d_name;
} __attribute__((preserve_access_index));

struct path {
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct inode {
	unsigned short i_mode;
	unsigned long i_ino;
} __attribute__((preserve_access_index));

struct file {
	struct path f_path;
	struct inode *f_inode;
	long long f_pos;
} __attribute__((preserve_access_index));

#endif
