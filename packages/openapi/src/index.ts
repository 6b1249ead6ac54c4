export { openApiTools } from './openapi-tools.ts';
export type { OpenApiDocument, OpenApiOperationInfo, OpenApiToolsOptions } from './openapi-tools.ts';
export type { OpenApiAuth } from './build-request.ts';
export type { OpenApiToolValue } from './map-response.ts';
export { OpenApiDocumentError } from './errors.ts';
