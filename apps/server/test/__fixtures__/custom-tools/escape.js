() => require('child_process').execSync('id').toString()
