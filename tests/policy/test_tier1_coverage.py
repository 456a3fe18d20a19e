"""The read-only verbs of common CLIs run silently under the default policy; their look-alikes do not.

Two tables, each judged by one `handrail classify --batch -` process in a fresh git repository
(no `.handrail`, so the built-in default policy decides):

- BENIGN: read-only commands as an agent types them (listing, showing, describing, versions,
  archive listings, certificate and binary inspection, report-only linters). Each must be tier 1.
- LOOK_ALIKES: the same tools' forms that delete, write, run code, send data or print a secret,
  many spelled to slip past a careless pattern (`aws s3 sync --delete --exclude list-x`,
  `tar -tf x.tar --index-file=…`, `openssl x509 -noout -text -in c.pem -out x`). None may be
  tier 1; a `d` row (destructive, or a secret read) must be tier 3 or unlisted, where a human
  decides; a `w` row (a local write, such as extracting an archive) may be tier 2.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from handrail.policy import protocol as protocols

Runner = Callable[..., subprocess.CompletedProcess[str]]
Answer = dict[str, Any]

BENIGN_TABLE = r"""
# Azure
az account show
az account show --output table
az account list --query "[].{name:name, id:id}" -o table
az group list -o table
az group show --name rg-prod
az vm list
az vm list -g rg-prod --show-details -o table
az vm show -g rg-prod -n web-1 --query hardwareProfile
az vm list-sizes --location westeurope
az vm get-instance-view -g rg -n web-1
az aks list -o table
az aks show -g rg -n cluster --query kubernetesVersion
az aks nodepool list -g rg --cluster-name cluster
az storage account list -g rg
az network vnet list -o table
az network nsg show -g rg -n web-nsg
az webapp list --query "[].defaultHostName"
az acr repository list --name registry
az acr repository show-tags --name registry --repository api
az keyvault list
az role assignment list --assignee bob@example.com
az deployment group list -g rg
az provider show -n Microsoft.Compute
az version
az account list-locations -o table
# Google Cloud
gcloud config list
gcloud config get-value project
gcloud auth list
gcloud projects list
gcloud projects describe my-project
gcloud compute instances list
gcloud compute instances list --filter="status=RUNNING" --format="table(name,zone)"
gcloud compute instances describe vm-1 --zone us-central1-a
gcloud compute zones list
gcloud compute networks subnets list --network default
gcloud compute firewall-rules list --format json
gcloud container clusters list
gcloud container clusters describe prod --region us-central1
gcloud container node-pools list --cluster prod --region us-central1
gcloud run services list --platform managed
gcloud run services describe api --region europe-west1
gcloud functions list
gcloud sql instances list
gcloud storage buckets list
gcloud storage ls gs://my-bucket/logs/
gcloud iam service-accounts list
gcloud services list --enabled
gcloud logging read "severity>=ERROR" --limit 20
gcloud artifacts repositories list
gcloud version
gsutil ls gs://my-bucket
bq ls my_dataset
# AWS
aws sts get-caller-identity
aws configure list
aws configure list-profiles
aws s3 ls
aws s3api list-buckets --query "Buckets[].Name"
aws s3api list-objects-v2 --bucket my-bucket --prefix logs/
aws s3api head-object --bucket my-bucket --key report.csv
aws s3api get-bucket-location --bucket my-bucket
aws ec2 describe-instances --filters Name=instance-state-name,Values=running
aws ec2 describe-instances --region eu-west-1 --output table
aws ec2 describe-security-groups --group-ids sg-123
aws ec2 describe-vpcs
aws ecs list-clusters
aws ecs describe-services --cluster prod --services api
aws eks list-clusters
aws eks describe-cluster --name prod
aws rds describe-db-instances --query "DBInstances[].DBInstanceIdentifier"
aws iam list-roles
aws iam get-user
aws cloudformation describe-stacks --stack-name prod
aws cloudformation list-stacks --stack-status-filter CREATE_COMPLETE
aws logs describe-log-groups
aws logs tail /aws/lambda/api --since 1h
aws route53 list-hosted-zones
aws sqs list-queues
aws dynamodb list-tables
aws dynamodb describe-table --table-name users
aws ecr describe-repositories
aws kms list-keys
aws cloudwatch describe-alarms --state-value ALARM
aws --version
# PaaS CLIs and Vault
doctl account get
doctl compute droplet list
doctl kubernetes cluster list
heroku apps
heroku apps:info --app my-app
heroku releases -a my-app
fly status
fly status -a my-app
fly apps list
fly machine list -a my-app
fly logs -a my-app
vercel ls
vercel whoami
vercel inspect my-app.vercel.app
wrangler whoami
supabase status
supabase projects list
netlify status
firebase projects:list
vault status
vault secrets list
vault auth list
vault version
# Kubernetes, Helm, containers
kubectl get pods -o yaml
kubectl get deployments -A
kubectl config current-context
kubectl config get-contexts
kubectl config view
kubectl config view --minify
kubectl config view -o jsonpath='{.contexts[*].name}'
kubectl cluster-info
kubectl api-resources
kubectl auth can-i create pods --namespace dev
kubectl rollout status deployment/api -n prod
kubectl rollout history deployment/api
kubectl events -n prod
kubectl describe secret db-credentials
kubectx
kubens
helm list -A
helm history api -n prod
helm get values api -n prod
helm get notes api
helm show values bitnami/postgresql
helm show chart ./chart
helm search repo nginx
helm repo list
helm version
helm lint ./chart
helm dependency list ./chart
docker compose config --services
docker compose ls
docker compose images
docker system df
docker network ls
docker network inspect bridge
docker volume ls
docker image ls
docker image history api:latest
docker stats --no-stream
docker context ls
docker port web
docker top web
podman ps -a
minikube status
kind get clusters
# Infrastructure as code
terraform state list
terraform state show aws_instance.web
terraform providers
terraform workspace list
terraform workspace show
terraform graph
terraform fmt -check
terraform fmt -check -recursive
terraform -version
tofu version
tofu plan
tofu state list
pulumi stack ls
pulumi stack
pulumi stack output
pulumi whoami
pulumi version
# Package managers and version managers
npm config get registry
npm config list
npm search express
npm prefix -g
npm root -g
npm pkg get version
npm audit --json
npm audit --omit=dev
npm view react version
pnpm list --depth 0
pnpm why lodash
pnpm outdated
pnpm audit
yarn why react
yarn workspaces list
yarn info react versions
yarn npm info react
pip index versions requests
pip cache dir
pip list --outdated
pip inspect
uv pip freeze
uv python list
uv version
poetry show
poetry show --tree
poetry check
poetry env info
poetry version --short
pipenv graph
conda list
conda env list
conda info --envs
conda search numpy
brew info wget
brew search ripgrep
brew outdated
brew deps --tree node
brew leaves
brew config
brew --prefix
brew services list
apt show nginx
apt search ripgrep
apt policy docker-ce
dpkg -L coreutils
dpkg -s openssl
dpkg-query -W -f='${Package} ${Version}\n'
rpm -qa
gem list
gem list rails
bundle list
bundle outdated
composer show
composer outdated --direct
mix deps
cargo search serde
cargo info tokio
cargo --list
cargo fmt --check
cargo fmt --all -- --check
go mod graph
go mod why golang.org/x/text
go env
go env GOPATH
go env GOPATH GOROOT GOOS
go env -json
gofmt -l .
dotnet --info
dotnet --list-sdks
dotnet list package --outdated
nvm ls
nvm current
pyenv versions
rustup show
rustup toolchain list
rustup target list --installed
pip-audit
go version
# Toolchain versions
java --version
javac -version
mvn -v
gradle -v
swift --version
xcodebuild -version
rustc --print sysroot
php -v
perl -v
gcc --version
cmake --version
psql --version
mysql --version
curl --version
ssh -V
# Databases and services
redis-cli --version
redis-cli ping
redis-cli info memory
redis-cli -h cache.internal ping
pg_isready -h localhost -p 5432
pg_config --version
mysqladmin ping
# Certificates
openssl version -a
openssl x509 -noout -text -in cert.crt
openssl x509 -in cert.crt -noout -text
openssl x509 -in cert.crt -noout -subject -dates
openssl x509 -noout -enddate -in /etc/ssl/certs/ca.crt
openssl x509 -noout -fingerprint -sha256 -in cert.crt
openssl req -noout -text -in request.csr
openssl verify -CAfile ca.crt cert.crt
openssl ciphers -v
# System information
lsb_release -a
sw_vers
hostnamectl
timedatectl status
loginctl list-sessions
systemd-analyze blame
systemd-analyze critical-chain
systemctl list-units --type=service --state=running
systemctl is-active nginx
systemctl list-timers
lscpu
lsusb
lspci -v
lsmod
findmnt
getconf PAGESIZE
getconf -a
tty
stty -a
tput cols
ulimit -a
vmstat 1 5
iostat -x 1 3
mpstat -P ALL 1 1
top -b -n 1
top -bn1
w
who
dmesg
dmesg -T
hostname -f
sysctl -a
sysctl -n vm.swappiness
getent passwd www-data
getent hosts example.com
# Network
ip addr
ip a
ip addr show dev eth0
ip -br addr
ip route
ip route get 8.8.8.8
ip link show
ip neigh
ss -tlnp
ss -tulnp
ss -s
netstat -an
netstat -tlnp
netstat -rn
ifconfig
route -n
arp -a
host example.com
whois example.com
traceroute example.com
resolvectl status
nmcli device status
# Archives
tar -tf release.tar
tar -tzf release.tar.gz
tar -tvf backup.tar
tar tzf release.tgz
tar --list --file release.tar
unzip -l app.zip
unzip -t app.zip
zipinfo app.zip
gzip -l access.log.gz
zcat access.log.gz
xzcat dump.sql.xz
xz -l dump.sql.xz
zstd -l data.zst
7z l archive.7z
ar t libfoo.a
jar tf app.jar
# Binaries and media
nm -C build/libfoo.a
nm -D /usr/lib/x86_64-linux-gnu/libssl.so.3
objdump -d build/app
objdump -h build/app
objdump -d -M intel build/app
readelf -a build/app
readelf -d build/app
otool -L build/app
c++filt _ZN3foo3barEv
patchelf --print-rpath build/app
javap -c -p build/classes/Foo.class
pdfinfo report.pdf
exiftool photo.jpg
ffprobe -hide_banner input.mp4
xattr -l app.dmg
# Report-only linters and counters
actionlint
actionlint .github/workflows/ci.yml
yamllint .
yamllint -d relaxed config.yml
codespell
typos
vale README.md
cloc .
tokei
tokei --output json
scc
xmllint --noout pom.xml
tidy -q -e index.html
black --check .
black --check --diff src
isort --check-only --diff .
prettier --check "src/**/*.ts"
clang-format --dry-run --Werror src/main.c
shfmt -d scripts
ruff format --check .
biome ci .
pycodestyle src
vulture src
# GitHub and git
gh workflow list
gh workflow view ci.yml
gh repo list my-org --limit 50
gh label list
gh cache list
gh run watch 12345
git lfs ls-files
git lfs version
git bundle verify /tmp/shop.bundle
git bundle list-heads shop.bundle
git bundle list-heads -- shop.bundle refs/heads/main
"""

# `d`: destructive or a secret read, a human decides (tier 3 or unlisted). `w`: writes or runs, not tier 1.
LOOK_ALIKE_TABLE = r"""
# Azure
d az vm delete --name vm1 --resource-group rg --yes
d az group delete --name rg --yes
d az group delete -n rg --yes --no-wait
d az vm deallocate --name vm1 -g rg
d az vm stop -n vm1 -g rg
d az storage account delete -n acct -g rg --yes
d az aks delete -n cluster -g rg --yes
d az keyvault secret show --vault-name kv --name db-password
d az storage account keys list -n acct -g rg
d az account get-access-token
d az aks get-credentials -n cluster -g rg
d az webapp config appsettings list -n app -g rg
d az vm run-command invoke -g rg -n vm1 --command-id RunShellScript --scripts "rm -rf /data"
d az acr credential show -n registry
d az resource delete --ids /subscriptions/x/resourceGroups/rg
d az vm list --query "[].id" -o tsv; az vm delete --ids x --yes
d az vm list && az vm delete -n x -g rg --yes
d az login
d az account set --subscription prod
# Google Cloud
d gcloud config get-value proxy/password
d gcloud compute instances delete vm-1 --zone us-central1-a --quiet
d gcloud compute instances stop vm-1 --zone us-central1-a
d gcloud compute instances delete vm-1 --filter list
d gcloud container clusters delete prod --region us-central1
d gcloud projects delete my-project
d gcloud sql instances delete db-1
d gcloud storage rm -r gs://bucket
d gcloud auth print-access-token
d gcloud secrets versions access latest --secret db-password
d gcloud compute ssh vm-1 --command "sudo reboot"
d gcloud run services delete api --region us-central1
d gcloud sql instances patch db-1 --no-backup --format list
d gcloud compute instances add-metadata vm-1 --metadata startup-script=x --format describe
d gcloud config set project prod
d gcloud config unset project
d gcloud auth revoke --all
d gcloud auth login
# AWS
d aws ec2 terminate-instances --instance-ids i-123
d aws ec2 stop-instances --instance-ids i-123
d aws s3 sync . s3://bucket --delete --exclude list-x
d aws s3 sync . s3://bucket --delete --exclude describe-x
d aws s3 rm s3://bucket --recursive --exclude list-x
d aws rds delete-db-instance --db-instance-identifier prod --skip-final-snapshot
d aws ec2 modify-instance-attribute --instance-id i-1 --attribute list-x
d aws iam create-access-key --user-name bob
d aws secretsmanager get-secret-value --secret-id prod/db
d aws ssm get-parameter --name /prod/db --with-decryption
d aws ecr get-login-password
d aws configure get aws_secret_access_key
d aws sts get-session-token
d aws lambda list-functions
d aws cloudformation delete-stack --stack-name prod
d aws dynamodb delete-table --table-name users
d aws s3api delete-bucket --bucket b
d aws s3api get-object --bucket b --key k out.bin
d aws s3api put-bucket-policy --bucket b --policy file://list-policy.json
d aws --region us-east-1 ec2 run-instances --image-id ami-1 --tag-specifications describe-x
d aws kms decrypt --ciphertext-blob fileb://x
d aws configure set aws_access_key_id x
# PaaS CLIs and Vault
d vault read secret/data/prod
d vault kv get secret/prod
d vault token lookup
d vault status -output-curl-string
d vault secrets disable kv
d vault kv destroy -versions=1 secret/x
d heroku config -a app
d heroku apps:destroy --app app --confirm app
d heroku ps:scale web=0 -a app
d fly destroy app --yes
d fly apps destroy app
d fly secrets set KEY=x
d vercel remove app --yes
d vercel env pull
d wrangler delete
d wrangler secret put KEY
d supabase db reset
d supabase projects delete ref
d doctl compute droplet delete web-1 --force
d doctl databases list
d npx markdownlint-cli2 --fix
d heroku releases:rollback v1 -a app
d vercel rollback
d fly deploy
d wrangler deploy
d doctl apps delete app-id --force
# Kubernetes, Helm, containers
d kubectl delete pod web-1
d kubectl delete namespace prod
d kubectl get secret db-credentials -o yaml
d kubectl get secrets -n prod -o json
d kubectl -n prod get secret/db -o jsonpath={.data}
d kubectl config view --raw
d kubectl config view --flatten --raw
d kubectl cluster-info dump --output-directory=/tmp/dump
d kubectl rollout undo deployment/api
d kubectl rollout restart deployment/api
d kubectl scale deployment api --replicas=0
d kubectl config use-context prod
d kubectl config delete-context prod
d kubectx prod
d kubens kube-system
d kubectl drain node-1 --ignore-daemonsets
d helm uninstall api
d helm rollback api 1
d helm upgrade api ./chart
d helm get manifest api
d helm repo remove stable
d helm plugin uninstall diff
d helm template api ./chart --output-dir /etc
d docker compose config
d docker compose down -v
d docker system prune -af
d docker volume rm data
d docker network rm net
d docker image prune -a
d docker context use remote
d docker compose config -o /tmp/out.yml
d kubectl auth can-i --list; kubectl delete ns prod
d helm show values chart > values.yaml; helm upgrade --install api chart -f values.yaml
# Infrastructure as code
d ansible-inventory --list
d ansible-playbook --syntax-check -i inventory.sh site.yml
d terraform state rm aws_instance.web
d terraform state mv a b
d terraform state pull
d terraform state push terraform.tfstate
d terraform destroy -auto-approve
d terraform apply -auto-approve
d terraform workspace delete staging
d terraform workspace select prod
d terraform providers lock
d terraform providers mirror /tmp/mirror
d terraform import aws_instance.web i-123
d terraform taint aws_instance.web
d terraform force-unlock 1234
d tofu destroy
d tofu state rm aws_instance.web
d tofu apply -auto-approve
d pulumi destroy --yes
d pulumi up --yes
d pulumi stack rm dev --yes
d pulumi stack output --show-secrets
d pulumi config get dbPassword
d pulumi config set dbPassword x --secret
d pulumi stack select prod
d pulumi stack history --show-secrets
w terraform fmt -check -write=true
w terraform fmt
d tflint --fix
d tflint --init
# Package managers and version managers
d conda remove -n env numpy
d conda env remove -n env
w conda install numpy
d conda info --unsafe-channels
d conda config --show
d brew uninstall wget
d brew upgrade
d brew cleanup
d brew tap homebrew/cask-fonts
d brew services stop postgresql
d apt remove nginx
d apt-get purge -y nginx
d apt-mark hold nginx
d dpkg -r nginx
d dpkg -i pkg.deb
d dpkg -s nginx -i x.deb
d rpm -e nginx
d rpm -qa --eval '%(rm -rf ~)'
d rpm -q nginx --eval x
d gem uninstall rails
w bundle config
w bundle update
w composer remove vendor/pkg
w composer update
d npm config get //registry.npmjs.org/:_authToken
d npm config set registry https://evil
d npm config list --json
w npm audit fix
w npm audit fix --force
d npm pkg set name=x
d npm fund lodash
d pnpm audit --fix
d pnpm config get //registry.npmjs.org/:_authToken
d yarn config get npmAuthToken
d pip config list
w pip uninstall -y requests
d pip cache purge
d pip cache remove '*'
w uv cache clean
w uv version --bump minor
w uv version 2.0.0
w poetry version minor
w poetry config --list
w poetry env remove python3.11
w poetry add requests
w hatch version minor
w cargo fmt
w cargo fmt --check -- --emit files
d cargo audit fix
w cargo install ripgrep
d go env -w GOPROXY=https://evil
d go env -u GOPROXY
d go env -json -w GOFLAGS=-x
w gofmt -w .
w gofmt -l -w .
w rustup toolchain uninstall stable
w rustup default nightly
w nvm uninstall 18
w nvm alias default 16
d pyenv uninstall 3.11.0
d pyenv global 3.12
w dotnet nuget locals all --clear
w dotnet tool uninstall -g dotnet-ef
d dotnet nuget push pkg.nupkg
d pip-audit --fix
d pip-audit -r requirements.txt
d pipdeptree --python ./evil
d npm audit --json fix
d brew --prefix; brew uninstall --force node
# Toolchain versions
w rustc --print cfg main.rs -o /tmp/main
d psql -c "DROP DATABASE prod"
# System information
d pidstat -e rm -rf /tmp/data
d hostname evil
d hostnamectl set-hostname evil
d hostnamectl hostname evil
d timedatectl set-timezone UTC
d timedatectl set-ntp false
d localectl set-locale LANG=C
d loginctl terminate-session 2
d loginctl kill-user bob
d systemd-analyze set-log-level debug
d systemctl stop nginx
d systemctl disable --now nginx
d systemctl mask nginx
d dmesg -C
d dmesg -c
d dmesg -n 1
d stty -echo
d stty raw
d tput reset
d sar -o /tmp/sa 1 3
d sysctl -w net.ipv4.ip_forward=1
d sysctl -n kernel.x -w kernel.x=1
d getent shadow
d lshw -dump /tmp/hw.db
d scutil --set HostName evil
d pmset -a sleep 0
d pmset -g -a sleep 0
d diskutil eraseDisk APFS x disk2
d top -b -n 1 -d 0.1 > /etc/x
# Network
d ip -4 addr add 10.0.0.2/24 dev eth0
d ip -6 route del default
d ip link set eth0 down
d ip addr add 10.0.0.2/24 dev eth0
d ip addr del 10.0.0.2/24 dev eth0
d ip addr flush dev eth0
d ip route del default
d ip route add default via 10.0.0.1
d ip neigh flush all
d ss -K dst 10.0.0.1
d ss -tlnp -K
d ss -D /tmp/dump
d ifconfig eth0 down
d route add default gw 10.0.0.1
d route del default
d arp -d 10.0.0.1
d arp -s 10.0.0.1 00:11:22:33:44:55
d resolvectl dns eth0 1.1.1.1
d resolvectl flush-caches
d nmcli connection show --show-secrets home
d nmcli connection delete home
d nmcli device disconnect eth0
d ethtool -s eth0 speed 100
# Archives
w zstdcat data.zst -o /tmp/data
w tar -xf archive.tar
w tar -xzf archive.tgz -C /
w tar -tf archive.tar --index-file=/etc/passwd
w tar -tf archive.tar -I "sh -c id"
w tar -tvf x.tar --to-command=sh
w tar -cf out.tar .
w tar -tf x.tar --checkpoint-action=exec=id
w tar xf archive.tar
w unzip archive.zip -d /
w unzip -o archive.zip
w unzip -l a.zip -d /tmp/out
w gzip -d file.gz
w gzip big.log
w xz -d file.xz
w 7z x archive.7z
w 7z l x.7z -o/tmp
d ar x lib.a
d jar xf app.jar
d zcat a.gz > /etc/passwd
# Certificates
d openssl x509 -in cert.pem -out cert.der -outform DER
d openssl x509 -noout -text -in cert.pem -out /tmp/x
d openssl x509 -req -in csr.pem -signkey key.pem -out cert.pem
d openssl rsa -in key.pem -text -noout
d openssl pkey -in key.pem -text
d openssl genrsa -out key.pem 2048
d openssl req -new -key key.pem -out csr.pem
d openssl x509 -noout -text
d openssl list -provider ./evil.so
d openssl s_client -connect example.com:443
# Binaries and media
d nm --plugin ./evil.so a.out
d nm -C a.out --plugin ./evil.so
d ldd ./build/app
d objdump -d a.out --plugin x
d javap -J-javaagent:evil.jar Foo
d exiftool -all= photo.jpg
d exiftool -overwrite_original -Artist=x photo.jpg
d ffprobe -report in.mp4
d ffprobe -i in.mp4 -o out.txt
d identify ephemeral:photo.jpg
d xattr -d com.apple.quarantine app
# Report-only linters and counters
w radon cc -O /tmp/report.txt src
d actionlint -shellcheck=./evil
d actionlint -pyflakes=./evil
d codespell -w
d codespell -w .
d typos -w
d typos --write-changes
d cloc --out=/etc/x .
d cloc --extract-with="sh -c id" x.tgz
d scc --output /tmp/x
d xmllint --noout x.xml --output y.xml
d xmllint --output /etc/x in.xml
d tidy -m index.html
d tidy -q -e -m index.html
w black .
w black --check . && rm -rf build
w isort .
w prettier --write .
w prettier --check --write .
w clang-format -i main.c
w shfmt -w .
w shfmt -d -w .
w ruff format .
w biome check --write .
d markdownlint --fix README.md
d markdownlint -r ./rules.js README.md
d vale sync
# Databases and services
d redis-cli flushall
d redis-cli -h db FLUSHALL
d redis-cli config get requirepass
d redis-cli info; redis-cli flushdb
d mysqladmin drop mydb
d mysqladmin status drop mydb
d mysqladmin shutdown
# GitHub and git
d gh workflow run deploy.yml
d gh workflow disable ci
d gh repo delete owner/repo --yes
d gh label delete bug --yes
d gh cache delete --all
d gh gist delete abc
d gh variable set X --body y
w git lfs prune
w git notes remove HEAD
w git bundle create shop.bundle --all
d git bundle create .git/hooks/pre-commit HEAD
d git bundle unbundle /tmp/shop.bundle
d git bundle list-heads .env
"""


def table(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


BENIGN = table(BENIGN_TABLE)
LOOK_ALIKES = [(line[0], line[2:]) for line in table(LOOK_ALIKE_TABLE)]


def classify_batch(handrail: Runner, cwd: Path, commands: list[str]) -> list[Answer]:
    r = handrail("classify", "--batch", "-", input="".join(json.dumps({"command": c}) + "\n" for c in commands),
                 cwd=cwd)
    assert r.returncode in (0, 1), r.stderr
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    assert [a["command"] for a in answers] == commands
    return answers


def shown(answer: Answer) -> str:
    why = [r.get("pattern") or r.get("rule") or r.get("why") for r in answer["reasons"]]
    return f"{answer['command']!r} -> tier {answer['tier']} ({'; '.join(map(str, why[:3]))})"


def test_the_tables_are_large() -> None:
    assert len(BENIGN) >= 200 and len(set(BENIGN)) == len(BENIGN)
    assert len(LOOK_ALIKES) >= 100 and len({c for _, c in LOOK_ALIKES}) == len(LOOK_ALIKES)
    assert {k for k, _ in LOOK_ALIKES} == {"d", "w"}


def test_read_only_verbs_run_silently(handrail: Runner, repo: Path) -> None:
    answers = classify_batch(handrail, repo, BENIGN)
    wrong = [shown(a) for a in answers if a["tier"] != 1 or a["decision"] != "allow"]
    assert not wrong, f"{len(wrong)} read-only commands are not tier 1:\n" + "\n".join(wrong)
    # the answer names the pattern that let it through, from the built-in default policy
    assert all(a["reasons"] and a["reasons"][0]["source"] == "handrail built-in default policy" for a in answers
               if a["reasons"][0]["reason"] == "pattern")


def test_look_alikes_are_never_silent(handrail: Runner, repo: Path) -> None:
    answers = classify_batch(handrail, repo, [c for _, c in LOOK_ALIKES])
    silent = [shown(a) for a in answers if a["tier"] == 1]
    assert not silent, f"{len(silent)} writing or destructive commands run silently:\n" + "\n".join(silent)
    unasked = [shown(a) for (kind, _), a in zip(LOOK_ALIKES, answers) if kind == "d" and a["tier"] not in (3, None)]
    assert not unasked, f"{len(unasked)} destructive commands run without a human:\n" + "\n".join(unasked)
    assert all(a["decision"] in ("ask", "unlisted") for (kind, _), a in zip(LOOK_ALIKES, answers) if kind == "d")


def tier1_patterns() -> list[str]:
    proto = protocols.builtin()
    return [p.text for p in protocols.patterns(proto) if p.tier == protocols.TIER1]


@pytest.mark.parametrize("program", ["aws", "gcloud", "az", "doctl", "kubectl", "helm", "terraform", "tofu",
                                     "pulumi", "docker", "npm", "pip", "cargo", "brew", "conda", "openssl", "tar"])
def test_no_silent_pattern_of_a_subcommand_tool_has_a_star_before_its_verb(program: str) -> None:
    # `aws * list-* *` would let `aws s3 sync . s3://b --delete --exclude list-x` through: a `*`
    # before the last word can swallow a subcommand or an option.
    mid = [p for p in tier1_patterns() if p.split()[0] == program and "*" in p.split()[:-1]]
    assert not mid, mid
