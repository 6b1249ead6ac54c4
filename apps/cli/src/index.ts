export { createProgram } from './program.ts';
export { main } from './main.ts';
