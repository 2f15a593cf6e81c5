import type { INodeProperties } from 'n8n-workflow';

// Placeholder until the resource's operations land.
export const operations = {};

export const description: INodeProperties[] = [];
