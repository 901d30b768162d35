/**
 * What a gate job needs to measure reach (docs/gate.md, "Reach"), put together from a
 * context's app services: the first-chat request builder over the same session-prompt builder
 * and tools a new chat uses (chatServices.ts), and the gate model's key for the index labels.
 */
import type { ProviderSettings } from '../providers/createProvider';
import type { ModelWindow } from '../providers/modelWindow';
import type { ReachServices } from '../gate/gateJob';
import type { AppServices } from './appServices';
import { chatSystemPromptBuilder } from './chatServices';
import { reachRouter } from './routerServices';

/**
 * `window`: the gate model's window. A reach request is a real first chat request, so it is built
 * with the same budget a new chat on that model gets (docs/context-window.md): the index and
 * memory within their shares, and the tools that window is offered, in its form.
 */
export async function reachServicesFor(services: AppServices, gateProvider: ProviderSettings, window?: ModelWindow): Promise<ReachServices> {
  const [registry, skills, memory, skillSettings, { toolSpecs }, { firstChatRequestBuilder }, { providerModelKey }, { planFor }, { promptFitOf, toolsForPlan }] = await Promise.all([
    services.tools(),
    services.skills(),
    services.memory(),
    services.settings.read('skills'),
    import('../agent/agentLoop'),
    import('../gate/reachRequest'),
    import('../gate/modelKey'),
    import('../agent/contextBudget'),
    import('../agent/chatContext'),
  ]);
  const chatPrompt = chatSystemPromptBuilder({ registry, skills, memory, skillSettings: () => skillSettings });
  const plan = window ? planFor(window) : null;
  const fit = plan ? promptFitOf(plan, registry.names()) : undefined;
  const buildSystemPrompt: typeof chatPrompt = (first, context) => chatPrompt(first, { ...context, ...(fit ? { fit } : {}) });
  return {
    buildRequest: firstChatRequestBuilder({ buildSystemPrompt, toolSpecs: () => (plan ? toolsForPlan(plan, toolSpecs(registry)) : toolSpecs(registry)) }),
    modelKey: providerModelKey(gateProvider),
    // The router's reach beside the model's (docs/gate.md, "Router"), on the same cases.
    route: await reachRouter(skills, skillSettings.disabled),
  };
}
