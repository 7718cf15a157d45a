// A platform's name as requests and settings give it: the shape every module's name has
// (module-registration.ts holds registered ones to it), checked where a name arrives.
import { z } from 'zod';

export const PLATFORM_NAME = /^[a-z][a-z0-9-]{1,30}$/;

/**
 * A platform's name as requests give it. With `known` (the directory's names), only one of those; without,
 * any name of a platform's shape (a filter that names none the bridge knows finds nothing).
 */
export const platformName = (known?: readonly string[]) =>
  known
    ? z.string().refine((name) => known.includes(name), { error: `must be one of ${known.join(', ')}` })
    : z.string().regex(PLATFORM_NAME, { error: 'must be a platform’s name, as GET /admin/api/platforms lists them' });
