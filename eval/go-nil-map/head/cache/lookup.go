package cache

// Lookup returns the entries of a tenant, or nil when the tenant has none yet.
func Lookup(all map[string]map[string]string, tenant string) map[string]string {
	return all[tenant]
}
