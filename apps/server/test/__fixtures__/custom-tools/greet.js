({ name }) => ({ greeting: `Hello, ${name}!`, hasRequire: typeof require !== 'undefined', hasProcess: typeof process !== 'undefined' })
