// SPDX-License-Identifier: GPL-2.0-or-later
/* Which PCI device raises each IRQ, its class and its NUMA node. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irq_internal.h"
#include "latscope/log.h"

#define PCI_DEVICES "/sys/bus/pci/devices"

/*
 * MSI and MSI-X vectors are listed by number in msi_irqs/; a legacy INTx
 * line is in irq (0 when none) and may be shared, so an MSI claim wins and
 * among legacy claims the lowest address does (readdir order is arbitrary).
 */
static void claim_irq(struct irq_table *table, bool *from_msi, unsigned int number,
		      const char *device, uint32_t class_code, int node, bool msi)
{
	struct irq_info *irq = irq_table_find(table, number);
	size_t row;

	if (!irq)
		return;
	row = (size_t)(irq - table->irqs);
	if (irq->device[0]) {
		if (from_msi[row] && !msi)
			return;
		if (from_msi[row] == msi && strcmp(device, irq->device) > 0)
			return;
	}
	snprintf(irq->device, sizeof(irq->device), "%s", device);
	irq->device_class = class_code;
	irq->node = node;
	from_msi[row] = msi;
}

static void map_device(struct sysroot *root, struct irq_table *table, bool *from_msi,
		       const char *device)
{
	char text[64];
	unsigned long class_code = 0, number;
	long long node = -1, legacy;
	struct dirent *entry;
	DIR *dir;

	if (sysroot_read(root, text, sizeof(text), PCI_DEVICES "/%s/class", device) > 0)
		class_code = strtoul(text, NULL, 16);
	if (sysroot_read_integer(root, &node, PCI_DEVICES "/%s/numa_node", device) || node < -1 ||
	    node > INT32_MAX)
		node = -1;
	dir = sysroot_opendir(root, PCI_DEVICES "/%s/msi_irqs", device);
	if (dir) {
		while ((entry = readdir(dir)))
			if (irq_parse_number(entry->d_name, &number) && number <= UINT_MAX)
				claim_irq(table, from_msi, (unsigned int)number, device,
					  (uint32_t)class_code, (int)node, true);
		closedir(dir);
	}
	if (!sysroot_read_integer(root, &legacy, PCI_DEVICES "/%s/irq", device) && legacy > 0 &&
	    legacy <= UINT_MAX)
		claim_irq(table, from_msi, (unsigned int)legacy, device, (uint32_t)class_code,
			  (int)node, false);
}

int irq_map_pci_devices(struct sysroot *root, struct irq_table *table)
{
	bool *from_msi = calloc(table->nr_irqs ? table->nr_irqs : 1, sizeof(*from_msi));
	struct dirent *entry;
	DIR *dir;

	if (!from_msi)
		return -ENOMEM;
	dir = sysroot_opendir(root, PCI_DEVICES);
	if (!dir) {
		/* no PCI bus (an embedded board): every IRQ is without device */
		log_debug("no %s" PCI_DEVICES ": %s", irq_root_prefix(root), strerror(errno));
		free(from_msi);
		return 0;
	}
	while ((entry = readdir(dir)))
		if (entry->d_name[0] != '.')
			map_device(root, table, from_msi, entry->d_name);
	closedir(dir);
	free(from_msi);
	return 0;
}

const char *irq_device_class_name(uint32_t class_code)
{
	switch (class_code >> 16) {
	case 0x00:
		return class_code ? "other" : "";
	case 0x01:
		return "storage";
	case 0x02:
		return (class_code >> 8) == 0x0200 ? "ethernet" : "network";
	case 0x03:
		return "display";
	case 0x04:
		return "multimedia";
	case 0x06:
		return "bridge";
	case 0x08:
		return "system";
	case 0x0c:
		return (class_code >> 8) == 0x0c03 ? "usb" : "serial-bus";
	default:
		return "other";
	}
}
