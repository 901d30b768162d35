import { toolSpecs } from '../../../src/agent/agentLoop';
import type { ToolSpec } from '../../../src/providers/provider';
import { sessionSearchToolDefinition } from '../../../src/sessions/sessionSearchTool';
import { memoryAppServices } from './memoryAppServices';

/**
 * The tool schemas a chat in the tab sends (memory, the skill tools, session_search), built
 * from the real definitions on in-memory storage. The session search itself is never called.
 */
export async function knackToolSpecs(): Promise<ToolSpec[]> {
  const { app } = await memoryAppServices('worker');
  try {
    const registry = await app.tools();
    const session = sessionSearchToolDefinition({ search: null as never });
    return [...toolSpecs(registry), { name: session.name, description: session.description, parameters: session.parameters }];
  } finally {
    app.changes.close();
  }
}
