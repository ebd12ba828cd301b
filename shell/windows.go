package shell

func (p *parser) powershellRun(cmd *Command, sc *scope, fr *frame) {}

func (p *parser) cmdRun(cmd *Command, sc *scope, fr *frame) {}
