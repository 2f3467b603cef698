package fanout

func Run(jobs []func() error) []error {
	errs := make([]error, len(jobs))
	for i, job := range jobs {
		errs[i] = job()
	}
	return errs
}
