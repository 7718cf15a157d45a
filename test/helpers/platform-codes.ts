// A running bridge's own codes part of a platform (StoreCodes), for a test that has it say which kinds of reward it
// cannot make (notMade): the merchant's Rewards and the rewards' save read that very object, as they read any
// platform's, so what the test sets is what the bridge answers.
import type { RunningBridge } from '../../src/composition/main.ts';
import type { StoreCodes } from '../../src/core/capabilities/codes.ts';

export function platformCodes(bridge: RunningBridge, platform: string): StoreCodes {
  const codes = bridge.platforms.modules.find(({ module }) => module.name === platform)?.parts.codes;
  if (!codes) throw new Error(`${platform} makes no codes on this bridge`);
  return codes;
}
