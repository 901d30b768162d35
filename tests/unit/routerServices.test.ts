/**
 * The router's decision for a chat message (app/routerServices.ts `routeMessage`, docs/gate.md
 * "Router"): on by the setting and the model, never for a slash command or a switched-off skill.
 */
import { describe, expect, it } from 'vitest';
import { routeMessage, type RoutedModel } from '../../src/app/routerServices';
import { createSkillRouter, type RouterMode } from '../../src/skills/skillRouter';

const matcher = async () => createSkillRouter([{ name: 'changelog', description: 'Helps with assorted tasks.', prompts: ['Draft the changelog entry for build 7.'] }]);
const smallModel: RoutedModel = { window: 4096, textProtocol: false };
const largeModel: RoutedModel = { window: 131072, textProtocol: false };

function route(text: string, router: RouterMode, model: RoutedModel | null, disabled: string[] = []) {
  return routeMessage(text, { settings: { router, disabled }, model: async () => model, matcher });
}

describe('routeMessage', () => {
  const request = 'Please draft the changelog entry for build 300';

  it('picks the matching skill when the router is on for the model', async () => {
    expect(await route(request, 'auto', smallModel)).toBe('changelog');
    expect(await route(request, 'on', largeModel)).toBe('changelog');
  });

  it('picks nothing when the router is off for the model, or no model is chosen', async () => {
    expect(await route(request, 'auto', largeModel)).toBeNull();
    expect(await route(request, 'off', smallModel)).toBeNull();
    expect(await route(request, 'on', null)).toBeNull();
  });

  it('picks nothing for blank text, a slash command, or a skill the user switched off', async () => {
    expect(await route('   ', 'on', smallModel)).toBeNull();
    expect(await route(`/changelog ${request}`, 'on', smallModel)).toBeNull();
    expect(await route(request, 'on', smallModel, ['changelog'])).toBeNull();
  });
});
