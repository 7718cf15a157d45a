// The platforms whose app the operator installs from the dashboard: their shops, and an install started, which makes
// the shop one of the bridge's; the page then goes where the platform says (its consent screen).
import type { PlatformInstalls } from '../../core/capabilities/stores.ts';
import type { PlatformInstall } from '../../core/platform-shapes.ts';
import { BadInput } from '../refused.ts';
import { Declined } from './declined.ts';
import type { OperatorParts } from './parts.ts';
import { read } from './read.ts';

export interface OperatorInstalls {
  /** The platforms whose app is installed from here, by name. */
  installing(): string[];
  installShops(platform: string): Promise<{ canInstall: boolean; example: string; shops: readonly PlatformInstall[] }>;
  /** `given`: the body as sent, read by the platform's own schema (how it writes a shop's address). */
  startInstall(platform: string, given: unknown, by: string): Promise<{ shop: string; next: string }>;
}

export const operatorInstalls = ({ platforms }: OperatorParts): OperatorInstalls => {
  const installsOf = (platform: string): PlatformInstalls => {
    const installs = platforms.modules.find(({ module }) => module.name === platform)?.parts.installs;
    if (!installs) throw new Declined(404, 'not found');
    return installs;
  };
  return {
    installing: () => platforms.modules.flatMap(({ module, parts }) => (parts.installs ? [module.name] : [])),
    installShops: async (platform: string) => {
      const installs = installsOf(platform);
      return { canInstall: installs.canInstall(), example: installs.example, shops: await installs.shops() };
    },
    startInstall: async (platform: string, given: unknown, by: string) => {
      const installs = installsOf(platform);
      const { shop } = read(installs.input, given);
      if (!installs.canInstall()) throw new BadInput('shop', installs.cannotInstall);
      const { next } = await installs.start(shop, by);
      return { shop, next };
    },
  };
};
