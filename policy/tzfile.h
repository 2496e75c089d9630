/*
 * tzfile.h: time zones from the system tz database (TZif files), for the
 * time builtins.  No environment variable is read or set (no tzset()), so
 * lookups are thread-safe.
 */
#ifndef AXP_TZFILE_H
#define AXP_TZFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct axp_tz;

/* The zone named name ("" and "UTC" give UTC, "Local" the system zone).
 * Zones are cached for the life of the process and shared by all threads;
 * the result stays valid and must not be freed.  NULL with Go's message
 * ("unknown time zone X", "time: invalid location name") in err. */
const struct axp_tz *
axp_tz_get(const char *name, size_t n, char *err, size_t errlen);
/* UTC. */
const struct axp_tz *axp_tz_utc(void);

/* The offset east of UTC (seconds) in effect at the instant ut, and its
 * abbreviation (may be ""; a pointer into the zone, valid as the zone). */
int32_t axp_tz_offset(const struct axp_tz *tz, int64_t ut, const char **abbr);

/* Days since 1970-01-01 of a proleptic Gregorian date (month and day may
 * be out of range and are normalised) and back. */
int64_t axp_days_from_civil(int64_t y, int64_t m, int64_t d);
void axp_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

#endif /* AXP_TZFILE_H */
