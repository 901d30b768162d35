/**
 * What a gate job needs to measure reach (docs/gate.md, "Reach"), put together from a
 * context's app services: the first-chat request builder over the same session-prompt builder
 * and tools a new chat uses (chatServices.ts), and the gate model's key for the index labels.
 */
import type { ProviderSettings } from '../providers/createProvider';
import type { ReachServices } from '../gate/gateJob';
import type { AppServices } from './appServices';
import { chatSystemPromptBuilder } from './chatServices';
import { reachRouter } from './routerServices';

export async function reachServicesFor(services: AppServices, gateProvider: ProviderSettings): Promise<ReachServices> {
  const [registry, skills, memory, skillSettings, { toolSpecs }, { firstChatRequestBuilder }, { providerModelKey }] = await Promise.all([
    services.tools(),
    services.skills(),
    services.memory(),
    services.settings.read('skills'),
    import('../agent/agentLoop'),
    import('../gate/reachRequest'),
    import('../gate/modelKey'),
  ]);
  const buildSystemPrompt = chatSystemPromptBuilder({ registry, skills, memory, skillSettings: () => skillSettings });
  return {
    buildRequest: firstChatRequestBuilder({ buildSystemPrompt, toolSpecs: () => toolSpecs(registry) }),
    modelKey: providerModelKey(gateProvider),
    // The router's reach beside the model's (docs/gate.md, "Router"), on the same cases.
    route: await reachRouter(skills, skillSettings.disabled),
  };
}
