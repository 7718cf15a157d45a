// What a shipped platform's module keeps of its own (its stores, which shops it allows), for tests that look
// at it directly: the bridge itself reaches it only through the module's parts.
import type { Platforms } from '../../src/composition/platforms.ts';

export function ownOf<Own>(platforms: Pick<Platforms, 'modules'>, name: string): Own {
  const built = platforms.modules.find(({ module }) => module.name === name);
  if (!built) throw new Error(`the ${name} module was not built: its settings leave it off`);
  return built.parts.own as Own;
}
