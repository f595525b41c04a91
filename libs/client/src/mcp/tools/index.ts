import { addDependencyTool } from './add-dependency';
import { addNoteTool } from './add-note';
import { amendDbClaimTool } from './amend-db-claim';
import { claimTool } from './claim';
import { commentTool } from './comment';
import { createItemTool } from './create-item';
import { explainTool } from './explain';
import { frontierTool } from './frontier';
import { getItemTool } from './get-item';
import { listItemsTool } from './list-items';
import { myWorkTool } from './my-work';
import { nextWorkTool } from './next-work';
import { releaseTool } from './release';
import { setStatusTool } from './set-status';
import { ToolDefinition } from './tool';
import { updateItemTool } from './update-item';

export * from './tool';
export { NEXT_WORK_STEPS } from './next-work';

export const MCP_TOOLS = [
  'next_work',
  'frontier',
  'explain',
  'claim',
  'release',
  'get_item',
  'set_status',
  'create_item',
  'add_dependency',
  'add_note',
  'amend_db_claim',
  'list_items',
  'update_item',
  'my_work',
  'comment',
] as const;
export type McpToolName = (typeof MCP_TOOLS)[number];

export const MCP_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  nextWorkTool,
  frontierTool,
  explainTool,
  claimTool,
  releaseTool,
  getItemTool,
  setStatusTool,
  createItemTool,
  addDependencyTool,
  addNoteTool,
  amendDbClaimTool,
  listItemsTool,
  updateItemTool,
  commentTool,
  myWorkTool,
];
